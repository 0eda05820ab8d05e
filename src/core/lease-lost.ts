// The mirror's sync found another process holding its lease: it stops writing, and the holder goes on.
export class LeaseLost extends Error {
  constructor() {
    super('another process holds the mirror sync lease');
    this.name = 'LeaseLost';
  }
}
