// Connections one process shares among the stores of many tenants (hosted mode: a mirror per business on one
// database). What they hold is the engine's own business; the store above the engines only passes them on.
export interface SharedConnections {
  readonly engine: 'postgres';
  close(): Promise<void>;
}
