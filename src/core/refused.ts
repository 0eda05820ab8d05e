// A question the books cannot answer as asked (no such branch, a customer name that fits several, the
// mirror off): the error boundary shows its message as it is, since it already says what to ask instead.
export class RefusedQuestion extends Error {
  override readonly name = 'RefusedQuestion';
}
