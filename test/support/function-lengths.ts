// Every function of a tree measured as the TypeScript parser sees it: declarations, methods, accessors,
// constructors, arrow functions and function expressions, each from its first token to its last.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface FunctionLength {
  /** The file, relative to the root the tree was read from. */
  file: string;
  /** Its own name, the name it is bound to (`const f = () => ...`), or the call it is given to (`app.get callback`). */
  name: string;
  lines: number;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

const nameOf = (node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string => {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isCallExpression(parent)) return `${parent.expression.getText(source)} callback`;
  return '(anonymous)';
};

const isMeasured = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** The length in lines of every function in one source text. */
export const functionLengthsOf = (file: string, text: string): FunctionLength[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (isMeasured(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node, source), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

/** Every function under the given folders of root longer than `limit` lines, longest first. */
export const functionsOver = (root: string, folders: string[], limit: number): FunctionLength[] =>
  folders
    .flatMap((folder) => sourceFiles(join(root, folder)))
    .flatMap((path) => functionLengthsOf(relative(root, path), readFileSync(path, 'utf8')))
    .filter((measured) => measured.lines > limit)
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
