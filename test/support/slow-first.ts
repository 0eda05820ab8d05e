// The order test files start in: the slowest first, from each file's time in an earlier run
// (test/durations.json, which `npm run test:durations` rewrites). With three workers on two cores, a long
// file that starts last keeps the run going alone at its end; vitest orders by the times it keeps in
// node_modules/.vite, which a fresh clone (and so CI) does not have, and there it ordered by file size,
// which cost about 4 s a run. A file missing from the list goes first: its time is not known.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS = new URL('../durations.json', import.meta.url);

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
    const time = (file: TestSpecification): number =>
      known[relative(file.project.config.root, file.moduleId).split('\\').join('/')] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => {
      const [ta, tb] = [time(a), time(b)];
      return ta === tb ? a.moduleId.localeCompare(b.moduleId) : tb > ta ? 1 : -1;
    });
  }
}
