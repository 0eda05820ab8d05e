// --client-id-documents on|off (INVOICING_MCP_CLIENT_ID_DOCUMENTS): on unless turned off, nothing else taken,
// and, like hosted mode's other flags, refused on the command line without --hosted.
import { describe, expect, it } from 'vitest';
import { parseServeOptions } from '../../src/cli/serve-flags.js';

describe('--client-id-documents', () => {
  it('is on unless turned off by the flag or its variable', () => {
    expect(parseServeOptions(['--hosted'], {}).clientIdDocuments).toBe(true);
    expect(parseServeOptions(['--hosted', '--client-id-documents', 'on'], {}).clientIdDocuments).toBe(true);
    expect(parseServeOptions(['--hosted', '--client-id-documents', 'off'], {}).clientIdDocuments).toBe(false);
    expect(parseServeOptions(['--hosted'], { INVOICING_MCP_CLIENT_ID_DOCUMENTS: 'off' }).clientIdDocuments).toBe(false);
  });

  it('takes on or off only, and only with --hosted', () => {
    expect(() => parseServeOptions(['--hosted', '--client-id-documents', 'no'], {})).toThrow(/must be on or off, not "no"/);
    expect(() => parseServeOptions(['--client-id-documents', 'off'], {})).toThrow(/is for hosted mode: add --hosted/);
  });
});
