/** An error of the engine, its message rid of the connection string's password. */
export class PostgresMirrorError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'PostgresMirrorError';
  }
}
