// node:fs with the one export the conformance suite imports that Node 20 lacks (see register.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;

export function globSync() {
  throw new Error('fs.globSync is not in Node 20');
}
