// Builds each view (src/views/page/<name>.ts) into one self-contained page, dist/views/<name>.html: the script
// (the extension's App, the chart library, our code) and the styles inlined, so the page asks nothing of the
// network when a host renders it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { englishOnly } from './zod-english-only.mjs';

const root = new URL('../', import.meta.url);
const VIEWS = { 'draft-review': 'Draft review', 'report-chart': 'Report charts' };
const css = readFileSync(new URL('src/views/page/styles.css', root), 'utf8');

// Inside a <script> element only "</script" can end it early; "<\/script" means the same to JavaScript.
const inlineScript = (code) => code.replace(/<\/script/gi, '<\\/script');

const page = (title, script) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${css}</style>
</head>
<body>
<main id="view"><p>Waiting for the result…</p></main>
<script>${inlineScript(script)}</script>
</body>
</html>
`;

mkdirSync(new URL('dist/views/', root), { recursive: true });
await Promise.all(
  Object.entries(VIEWS).map(async ([name, title]) => {
    const out = await build({
      absWorkingDir: root.pathname,
      entryPoints: [`src/views/page/${name}.ts`],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'inline',
      plugins: [englishOnly],
      logLevel: 'warning',
    });
    writeFileSync(new URL(`dist/views/${name}.html`, root), page(title, out.outputFiles[0].text));
  }),
);
