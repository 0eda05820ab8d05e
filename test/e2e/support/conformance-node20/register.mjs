// Loaded with `node --import` before the conformance suite's CLI. Its 0.2.0 alphas import `globSync` from
// 'fs', which Node has only from 22; the project (and CI) run Node 20, where that import fails at link time.
// The hooks give the suite, and it alone, an 'fs' that has the export; the authorization scenarios never call it.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
