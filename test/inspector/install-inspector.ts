// The MCP Inspector for `npm run test:inspector` (vitest's globalSetup): the pinned version from the npm
// registry, installed once into node_modules/.cache (not a dependency of ours: it weighs some 110 MB),
// with its install scripts off. MCP_INSPECTOR_VERSION tries another version.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export const PINNED_INSPECTOR = '2.12.0';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Inspector's command (its launcher's script) and its version. */
    inspector: { launcher: string; version: string };
  }
}

export default function setup(project: TestProject): void {
  const version = process.env.MCP_INSPECTOR_VERSION?.trim() || PINNED_INSPECTOR;
  const folder = join(project.config.root, 'node_modules', '.cache', `mcp-inspector-${version}`);
  const pkg = join(folder, 'node_modules', '@modelcontextprotocol', 'inspector');
  if (!existsSync(join(pkg, 'package.json'))) {
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        folder,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        `@modelcontextprotocol/inspector@${version}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  project.provide('inspector', { launcher: join(pkg, 'clients', 'launcher', 'build', 'index.js'), version });
}
