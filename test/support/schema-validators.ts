// The SDK clients' check of tool results against their output schemas, with each schema compiled once per
// test worker: both SDKs' clients compile every tool's output schema anew for each client they make (some
// 20 tools, for each of the suite's hundreds of clients, about 3 s of CPU in all). Results are checked as
// before, by each SDK's own Ajv validator.

import { AjvJsonSchemaValidator as AjvV2 } from '@modelcontextprotocol/client/validators/ajv';
import { AjvJsonSchemaValidator as AjvV1 } from '@modelcontextprotocol/sdk/validation/ajv';

interface Validating<V> {
  getValidator(schema: never): V;
}

function compiledOnceBy<V>(validator: { getValidator(schema: any): V }): Validating<V> {
  const compiled = new Map<string, V>();
  return {
    getValidator(schema) {
      const key = JSON.stringify(schema);
      let check = compiled.get(key);
      if (!check) {
        check = validator.getValidator(schema);
        compiled.set(key, check);
      }
      return check;
    },
  };
}

/** For the v1 SDK's Client (`jsonSchemaValidator`). */
export const compiledOnce = compiledOnceBy(new AjvV1());
/** For the v2 SDK's Client (`jsonSchemaValidator`). */
export const compiledOnceV2 = compiledOnceBy(new AjvV2());
