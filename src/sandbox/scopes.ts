// The scopes a key may be given, and what a key with none ticked may do.
export const READ_SCOPES = ['customers.read', 'invoices.read', 'quotes.read', 'payments.read', 'products.read'] as const;
export const WRITE_SCOPES = ['customers.write', 'invoices.write'] as const;
export const ALL_SCOPES: readonly string[] = [...READ_SCOPES, ...WRITE_SCOPES];

/** A key with no scope ticked reads everything and writes nothing. */
export function effectiveScopes(ticked: readonly string[]): string[] {
  return ticked.length === 0 ? [...READ_SCOPES] : [...ticked];
}
