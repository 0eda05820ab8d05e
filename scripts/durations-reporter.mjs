// A vitest reporter for `npm run test:durations` (every tier; `-- --config vitest.quick.config.ts` the quick one):
// each test file's time in this run (importing it, its tests and its hooks, ms rounded to 100) into
// test/durations.json, over the times it held, less files that are gone. The times order the next runs' files
// slowest first (test/support/slow-first.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class DurationsReporter {
  #root = '';
  #durations = new Map();

  onInit(vitest) {
    this.#root = vitest.config.root;
  }

  onTestModuleEnd(testModule) {
    const d = testModule.diagnostic();
    const ms = d.collectDuration + d.duration;
    this.#durations.set(relative(this.#root, testModule.moduleId).split('\\').join('/'), Math.round(ms / 100) * 100);
  }

  onTestRunEnd(_modules, _errors, reason) {
    if (reason !== 'passed') {
      process.stderr.write(`test/durations.json not written: the run ${reason}\n`);
      return;
    }
    const file = new URL('../test/durations.json', import.meta.url);
    const known = Object.entries(JSON.parse(readFileSync(file, 'utf8'))).filter(([path]) => existsSync(`${this.#root}/${path}`));
    const merged = new Map([...known, ...this.#durations]);
    const sorted = Object.fromEntries([...merged].sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
    process.stderr.write(`test/durations.json: ${this.#durations.size} files\n`);
  }
}
