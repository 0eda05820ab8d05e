// `npm run screenshots:readme`: copies the two screenshots the README shows (the draft review and the
// chart of sales by month, light theme) from the browser test's last run (test/screenshots/) into docs/images/.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const SHOTS = ['draft-review-light.png', 'report-sales-light.png'];

mkdirSync(new URL('docs/images/', root), { recursive: true });
for (const name of SHOTS) {
  const from = new URL(`test/screenshots/${name}`, root);
  if (!existsSync(from)) {
    process.stderr.write(`screenshots:readme: no ${name}: run \`npx vitest run test/e2e/views-browser.test.ts\` first\n`);
    process.exit(1);
  }
  copyFileSync(from, new URL(`docs/images/${name}`, root));
  process.stderr.write(`screenshots:readme: docs/images/${name}\n`);
}
