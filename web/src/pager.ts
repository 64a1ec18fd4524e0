// A pager over one of hived's list_* methods, as hivegate's typed API serves
// them: each response carries `next_start`, the cursor of its last row, and
// the page fetched with it begins with that same row again (hived's start is
// inclusive). The pager asks for one extra row on following pages and drops
// the repeated one, so every page shows `limit` new rows.

/** One fetched page: its rows and the cursor of its last row. */
export interface Fetched<Row, Cursor> {
  rows: Row[];
  next: Cursor | undefined;
}

/** Fetches one page starting at `start` (undefined: the first page). */
export type FetchPage<Row, Cursor> = (
  start: Cursor | undefined,
  limit: number,
) => Promise<Fetched<Row, Cursor>>;

/** The largest page hived accepts. */
export const maxLimit = 1000;

/** Pager walks a list forward one page at a time. */
export class Pager<Row, Cursor> {
  /** The number of the page shown last; 0 before the first page. */
  page = 0;
  /** Whether the list has no rows after the page shown last. */
  done = false;
  private next: Cursor | undefined;
  private lastKey: string | undefined;

  constructor(
    private readonly fetchPage: FetchPage<Row, Cursor>,
    private readonly key: (row: Row) => string,
    private readonly limit: number,
  ) {}

  /**
   * Fetches the next page and returns its rows, without the row the previous
   * page ended with. The pager's state changes only when the fetch succeeds,
   * so a failed page can be retried.
   */
  async nextPage(): Promise<Row[]> {
    if (this.done) return [];
    const first = this.page === 0;
    const ask = first ? this.limit : Math.min(this.limit + 1, maxLimit);
    const got = await this.fetchPage(first ? undefined : this.next, ask);
    let rows = got.rows;
    if (!first && rows.length > 0 && this.key(rows[0]) === this.lastKey) {
      rows = rows.slice(1);
    }
    rows = rows.slice(0, this.limit);
    this.done = got.rows.length < ask || got.next === undefined;
    if (rows.length === 0 && !first) {
      this.done = true;
      return rows;
    }
    this.page++;
    this.next = got.next;
    if (rows.length > 0) this.lastKey = this.key(rows[rows.length - 1]);
    return rows;
  }
}
