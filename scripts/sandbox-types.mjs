// Writes dist/types/sandbox/index.d.ts, the types of the package's `invoicing-mcp/sandbox` export. The module
// declares its public types itself (TypeScript's isolated declarations), so its declaration file is emitted
// from that one file, without a type-checking program (`npm run typecheck` checks it with the rest).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

const root = new URL('../', import.meta.url);
const source = readFileSync(new URL('src/sandbox/index.ts', root), 'utf8');
const { outputText, diagnostics } = ts.transpileDeclaration(source, {
  fileName: 'index.ts',
  reportDiagnostics: true,
  compilerOptions: { isolatedDeclarations: true, declaration: true },
});
if (diagnostics && diagnostics.length > 0) {
  for (const d of diagnostics) process.stderr.write(`src/sandbox/index.ts: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}\n`);
  process.exit(1);
}
mkdirSync(new URL('dist/types/sandbox/', root), { recursive: true });
writeFileSync(new URL('dist/types/sandbox/index.d.ts', root), outputText);
