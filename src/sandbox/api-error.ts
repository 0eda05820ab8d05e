// A refusal the sandbox answers with: status, JSON body with a `message`, and any extra headers.

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { message: this.message, ...this.extra };
  }
}

export const unauthorized = (message: string): ApiError => new ApiError(401, message);
export const forbidden = (message: string, extra: Record<string, unknown> = {}): ApiError => new ApiError(403, message, extra);
export const notFound = (message: string): ApiError => new ApiError(404, message);

/** 422 with `errors` keyed by field path; the message names the first problem so a log line says enough. */
export function invalid(errors: FieldErrors): ApiError {
  const fields = Object.keys(errors);
  const first = fields[0] ?? 'request';
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more field${fields.length > 2 ? 's' : ''})` : '';
  return new ApiError(422, `The given data was invalid: ${first}: ${errors[first]?.[0] ?? 'is invalid'}${more}`, { errors });
}

/** Collects field errors in the order they are found. */
export class FieldErrorList {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw invalid(this.errors);
  }
}
