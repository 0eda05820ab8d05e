// Which of the project's source files run while a piece of work is done in this process: V8's precise
// coverage, its counts reset before and read after. A data path "crosses" the files whose code runs on it;
// what runs on every try of the same work is the path, what ran on one try only was something else of the
// process (a timer), so the path is what several tries have in common.
import { Session } from 'node:inspector/promises';

const root = new URL('../../', import.meta.url).href;
const OURS = /^(src|tools|prompts)\//;

interface ScriptCoverage {
  url: string;
  functions: { ranges: { count: number }[] }[];
}

/** The project's files (from the root, the sandbox's left out: it stands for the service) whose code ran. */
function ranOf(scripts: readonly ScriptCoverage[]): Set<string> {
  const files = new Set<string>();
  for (const script of scripts) {
    if (!script.url.startsWith(root)) continue;
    const file = script.url.slice(root.length).replace(/\?.*$/, '');
    if (!OURS.test(file) || file.startsWith('src/sandbox/')) continue;
    if (script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0)) files.add(file);
  }
  return files;
}

/** The files that ran on every one of `tries` runs of `work`, sorted. */
export async function filesRunBy(work: () => Promise<void>, tries = 3): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    let common: Set<string> | null = null;
    for (let i = 0; i < tries; i++) {
      await session.post('Profiler.takePreciseCoverage');
      await work();
      const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
      const ran = ranOf(result);
      common = common === null ? ran : new Set([...common].filter((file) => ran.has(file)));
    }
    return [...(common ?? [])].sort();
  } finally {
    await session.post('Profiler.stopPreciseCoverage').catch(() => undefined);
    session.disconnect();
  }
}
