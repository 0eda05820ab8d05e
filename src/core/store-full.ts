// A write the store could not make for want of space. What is stored stays as it was; answers go on from it,
// saying that the mirror is not being updated, and writes resume when space returns.
export class MirrorStoreFull extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the mirror's store has no space for new records (${reason})`, options);
    this.name = 'MirrorStoreFull';
  }
}
