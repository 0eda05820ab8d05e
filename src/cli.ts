#!/usr/bin/env node
// The entry point: picks the command. The only module allowed to write to stdout, and only for commands
// that do not speak MCP over stdio (`sandbox`, `check`, help).
import { ConfigError } from './config.js';
import { SANDBOX_USAGE, UsageError } from './commands/sandbox.js';
import { SERVE_USAGE } from './serve-options.js';

const USAGE = `${SERVE_USAGE}
       invoicing-mcp check        sign in and print mode, business, scopes, limits and usable tools
       invoicing-mcp sandbox ...  run the emulated Invoicing Service (see --help there)`;

const stderr = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'sandbox') {
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(`${SANDBOX_USAGE}\n`);
      return;
    }
    const { runSandboxCommand } = await import('./commands/sandbox.js');
    const sb = await runSandboxCommand(rest, (text) => process.stdout.write(`${text}\n`));
    const stop = (): void => void sb.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (command === 'check') {
    const { runCheck } = await import('./commands/check.js');
    process.stdout.write(`${await runCheck(process.env)}\n`);
    return;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    stderr(USAGE);
    return;
  }
  const { runServe } = await import('./commands/serve.js');
  await runServe(argv, process.env, stderr);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    stderr(`invoicing-mcp: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof UsageError || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
    stderr(`invoicing-mcp: ${err.message}\n${process.argv[2] === 'sandbox' ? SANDBOX_USAGE : USAGE}`);
    process.exit(2);
  }
  stderr(`invoicing-mcp: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
