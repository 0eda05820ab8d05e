/** An error of a database engine, its message rid of the connection string's password; `code`: its SQLSTATE or errno. */
export class DatabaseError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'DatabaseError';
  }
}
