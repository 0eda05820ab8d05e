// The project's source read by the TypeScript parser, for convention tests: its files, the comments of a file,
// and the places a file names a global (setTimeout, setInterval). Parsed, not matched: a string or a comment
// that says "setTimeout" is not a call, and a `//` inside a string is not a comment.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|mts|mjs|js)$/;

/** Every source file under these folders (paths from `root`), node_modules and build output left out. */
export function sourceFilesUnder(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir))) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return files.sort();
}

function parsed(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

const K = ts.SyntaxKind;
/** After these a `/` divides; after anything else it starts a regular expression. */
const ENDS_OPERAND = new Set([
  K.Identifier,
  K.NumericLiteral,
  K.StringLiteral,
  K.CloseParenToken,
  K.CloseBracketToken,
  K.CloseBraceToken,
  K.NoSubstitutionTemplateLiteral,
  K.TemplateTail,
  K.ThisKeyword,
  K.SuperKeyword,
]);

/** The text of every comment of a file, with its line: one pass of the scanner (templates and regexps rescanned). */
export function commentsOf(_file: string, text: string): { line: number; text: string }[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const lineStarts = ts.computeLineStarts(text);
  const comments: { line: number; text: string }[] = [];
  const braces: number[] = [];
  let last: ts.SyntaxKind = K.Unknown;
  for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
    if (kind === K.SingleLineCommentTrivia || kind === K.MultiLineCommentTrivia) {
      const { line } = ts.computeLineAndCharacterOfPosition(lineStarts, scanner.getTokenStart());
      comments.push({ line: line + 1, text: scanner.getTokenText() });
      continue;
    }
    if (kind === K.WhitespaceTrivia || kind === K.NewLineTrivia) continue;
    if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !ENDS_OPERAND.has(last)) kind = scanner.reScanSlashToken();
    if (kind === K.TemplateHead) braces.push(0);
    else if (kind === K.OpenBraceToken && braces.length > 0) braces[braces.length - 1]!++;
    else if (kind === K.CloseBraceToken && braces.length > 0) {
      if (braces[braces.length - 1] === 0) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === K.TemplateTail) braces.pop();
      } else braces[braces.length - 1]!--;
    }
    last = kind;
  }
  return comments;
}

/** The lines where a file names one of these identifiers in its code (a call, a reference, `globalThis.x`). */
export function linesNaming(file: string, text: string, names: ReadonlySet<string>): number[] {
  if (![...names].some((name) => text.includes(name))) return [];
  const source = parsed(file, text);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && names.has(node.text) && !isDeclaredName(node))
      lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    node.forEachChild(visit);
  };
  visit(source);
  return lines;
}

/** A property's or member's own name (`{ setTimeout: ... }`, `x.setTimeout` of an object of ours) is not the global. */
function isDeclaredName(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)) return parent.name === node;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node)
    return !(ts.isIdentifier(parent.expression) && ['globalThis', 'window', 'global', 'self'].includes(parent.expression.text));
  return false;
}

const PATH_IN_COMMENT = /(?<![\w@/.:-])((?:\.{1,2}\/)?(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mts|mjs|js|json|md))(?![\w/])/g;

/**
 * The paths comments name that do not exist: `./<file>` and `../<file>` from the file's folder; `<folder>/<file>`
 * from the file's folder or any folder above it (so `books/<file>` from src/answers/ is src/books/<file>); a bare
 * file name anywhere in the project, save a bare `.js` one (a library's name, as Chart.js is). A `.js` path
 * stands for its `.ts` too (ESM imports name the built file); dist/ is the build's, made before the tests run.
 */
export function missingPathsInComments(root: string, folders: readonly string[]): string[] {
  const everyName = new Set(sourceFilesUnder(root, ['.']).map((f) => basename(f)));
  for (const f of readdirSync(root)) everyName.add(f);
  const exists = (path: string): boolean =>
    path.startsWith('dist/') ||
    existsSync(join(root, path)) ||
    (path.endsWith('.js') && existsSync(join(root, path.replace(/\.js$/, '.ts'))));
  const found = (file: string, named: string): boolean => {
    if (!named.includes('/')) return named.endsWith('.js') || everyName.has(named);
    if (named.startsWith('.')) return exists(normalize(join(dirname(file), named)));
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      if (exists(normalize(join(dir, named)))) return true;
      if (dir === '.' || dir === '/' || dir === '') return false;
    }
  };
  const missing: string[] = [];
  for (const file of sourceFilesUnder(root, folders)) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const comment of commentsOf(file, text)) {
      for (const m of comment.text.matchAll(PATH_IN_COMMENT)) {
        const named = m[1] as string;
        if (!found(file, named)) missing.push(`${file}:${comment.line} names ${named}`);
      }
    }
  }
  return missing;
}
