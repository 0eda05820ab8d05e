// The resolve hook registered by register.mjs: 'fs' asked for by the conformance suite is fs-node20.mjs.
const shim = new URL('./fs-node20.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('@modelcontextprotocol/conformance')) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
