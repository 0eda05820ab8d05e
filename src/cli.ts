#!/usr/bin/env node
// The entry point: picks the command. The only module allowed to write to stdout, and only in commands
// that do not speak MCP over stdio.
import { runSandboxCommand, SANDBOX_USAGE, UsageError } from './commands/sandbox.js';

const USAGE = `usage: invoicing-mcp sandbox [options]   run the emulated Invoicing Service

${SANDBOX_USAGE}`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'sandbox') {
    const sb = await runSandboxCommand(rest, (text) => process.stdout.write(`${text}\n`));
    const stop = (): void => {
      void sb.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  throw new UsageError(`unknown command "${command ?? ''}"`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
    process.stderr.write(`invoicing-mcp: ${err.message}\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`invoicing-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
