// `npm run screenshots:readme`: runs the views' browser test with VIEW_SCREENSHOTS=1 (it then keeps a screenshot
// of each view in each theme in test/screenshots/), and copies the two the README shows (the draft review and
// the chart of sales by month, light theme) into docs/images/.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const SHOTS = ['draft-review-light.png', 'report-sales-light.png'];

const run = (args, env = {}) => {
  const done = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (done.status !== 0) {
    process.stderr.write(`screenshots:readme: ${args.join(' ')} failed\n`);
    process.exit(1);
  }
};
run(['scripts/build-dist.mjs']);
run(['node_modules/vitest/vitest.mjs', 'run', 'test/e2e/views-browser.test.ts'], { VIEW_SCREENSHOTS: '1' });

mkdirSync(new URL('docs/images/', root), { recursive: true });
for (const name of SHOTS) {
  const from = new URL(`test/screenshots/${name}`, root);
  if (!existsSync(from)) {
    process.stderr.write(`screenshots:readme: the browser test made no ${name}\n`);
    process.exit(1);
  }
  copyFileSync(from, new URL(`docs/images/${name}`, root));
  process.stderr.write(`screenshots:readme: docs/images/${name}\n`);
}
