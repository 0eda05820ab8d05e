// The project's tables live in a Postgres schema of their own, so a database that holds other tables keeps them apart.
/** The mirror's schema unless told another (hosted mode gives each tenant a schema of its own). */
export const SCHEMA_NAME = 'invoicing_mcp';
/** A schema name written into SQL as it is: lower-case letters, digits and underscores only. */
const SCHEMA_NAME_RE = /^[a-z_][a-z0-9_]{0,55}$/;

export function checkedSchemaName(name: string): string {
  if (!SCHEMA_NAME_RE.test(name)) throw new Error(`not a mirror schema name: ${JSON.stringify(name)}`);
  return name;
}
