// Writes dist/mcpb/manifest.json: mcpb/manifest.json with the package's version and the tools and prompts
// of the registries, so a tool or prompt added anywhere is listed in the bundle without editing by hand.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadRegistries } from './registries.mjs';

const root = new URL('../', import.meta.url);
const { PROMPTS } = await loadRegistries();
const read = (path) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

/** The prompt's text with each argument left as the client's `${arguments.name}` placeholder. */
function promptEntry(prompt) {
  const names = Object.keys(prompt.args({}).shape);
  const placeholders = Object.fromEntries(names.map((name) => [name, `\${arguments.${name}}`]));
  return { name: prompt.name, description: prompt.description, arguments: names, text: prompt.text(placeholders) };
}

const { $comment: _comment, ...base } = read('mcpb/manifest.json');
const manifest = {
  ...base,
  version: read('package.json').version,
  tools: read('dist/tools/manifest.json').map((tool) => ({ name: tool.name, description: tool.description })),
  prompts: PROMPTS.map(promptEntry),
};
mkdirSync(new URL('dist/mcpb/', root), { recursive: true });
writeFileSync(new URL('dist/mcpb/manifest.json', root), `${JSON.stringify(manifest, null, 2)}\n`);
