// The v1 SDK client's check of tool results against their output schemas, with each schema compiled once per
// test worker: the client compiles every tool's output schema anew for each client it makes (some 20 tools,
// for each of the suite's hundreds of clients, about 2 s of CPU in all). Results are checked as before.

import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const ajv = new AjvJsonSchemaValidator();
const compiled = new Map<string, ReturnType<jsonSchemaValidator['getValidator']>>();

export const compiledOnce: jsonSchemaValidator = {
  getValidator(schema) {
    const key = JSON.stringify(schema);
    let validator = compiled.get(key);
    if (!validator) {
      validator = ajv.getValidator(schema);
      compiled.set(key, validator);
    }
    return validator as never;
  },
};
