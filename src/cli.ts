#!/usr/bin/env node
// The entry point: picks the command. The only module allowed to write to stdout, and only for commands
// that do not speak MCP over stdio (`sandbox`, `check`, help). Nothing is imported statically: serving (the
// usual command) starts loading its whole module graph at once, so the SDK's and zod's files are read side
// by side instead of one graph after the other.

const argv = process.argv.slice(2);
const WANTS_HELP = argv[0] === 'help' || (argv[0] !== 'sandbox' && (argv.includes('--help') || argv.includes('-h')));
const WANTS_VERSION = !WANTS_HELP && ['--version', '-V', 'version'].includes(argv[0] ?? '');
const SERVING = !WANTS_HELP && !WANTS_VERSION && !['sandbox', 'check', 'mirror', 'vault'].includes(argv[0] ?? '');
const serveModule = SERVING ? import('./cli/serve-command.js') : null;

async function version(): Promise<string> {
  const { readFileSync } = await import('node:fs');
  // Two levels up from dist/bin/ (the bundle) and dist/src/ alike: the package's own package.json.
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

async function usage(): Promise<string> {
  const { helpText } = await import('./cli/usage.js');
  return helpText(await version());
}

const stderr = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

const said = (err: unknown): string => (err instanceof Error ? err.message : String(err));

// The last word on what nothing else caught: one line, never a stack trace. A stray rejection is a bug, but
// not a reason to drop every client's session; an uncaught exception leaves nothing to trust, so it ends.
process.on('unhandledRejection', (err) => stderr(`invoicing-mcp: an operation failed with nobody waiting for it: ${said(err)}`));
process.on('uncaughtException', (err) => {
  stderr(`invoicing-mcp: stopped on an unexpected error: ${said(err)}`);
  process.exit(1);
});

async function main(): Promise<void> {
  const [command, ...rest] = argv;
  if (WANTS_HELP) {
    process.stdout.write(`${await usage()}\n`);
    return;
  }
  if (WANTS_VERSION) {
    process.stdout.write(`${await version()}\n`);
    return;
  }
  if (serveModule) {
    const { runServe } = await serveModule;
    await runServe(argv, process.env, stderr);
    return;
  }
  if (command === 'sandbox') {
    if (rest.includes('--help') || rest.includes('-h')) {
      const { SANDBOX_USAGE } = await import('./cli/sandbox-command.js');
      process.stdout.write(`${SANDBOX_USAGE}\n`);
      return;
    }
    const { runSandboxCommand } = await import('./cli/sandbox-command.js');
    const sb = await runSandboxCommand(rest, (text) => process.stdout.write(`${text}\n`));
    const stop = (): void => void sb.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (command === 'mirror') {
    const { runMirrorCommand } = await import('./cli/mirror-command.js');
    process.stdout.write(`${await runMirrorCommand(rest, process.env)}\n`);
    return;
  }
  if (command === 'vault') {
    const { runVaultCommand } = await import('./cli/vault-command.js');
    process.stdout.write(`${await runVaultCommand(rest, process.env)}\n`);
    return;
  }
  if (command === 'check') {
    const { runCheck } = await import('./cli/check-command.js');
    process.stdout.write(`${await runCheck(process.env, rest)}\n`);
    return;
  }
}

main().catch(async (err: unknown) => {
  const [{ ConfigError }, { SANDBOX_USAGE, UsageError }] = await Promise.all([
    import('./cli/service-env.js'),
    import('./cli/sandbox-command.js'),
  ]);
  if (err instanceof ConfigError) {
    stderr(`invoicing-mcp: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof UsageError || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
    stderr(
      `invoicing-mcp: ${err.message}\n${argv[0] === 'sandbox' ? SANDBOX_USAGE : 'Run invoicing-mcp --help for the commands, flags and environment variables.'}`,
    );
    process.exit(2);
  }
  stderr(`invoicing-mcp: ${said(err)}`);
  process.exit(1);
});
