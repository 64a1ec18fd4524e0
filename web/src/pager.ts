// A pager over one of hived's list_* methods, as hivegate's typed API serves
// them: each response carries `next_start`, and sent back unchanged it gives
// the next page with no row repeated or skipped; it is unset on the last page
// (proto/README.md, "Paging").

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

/** Pager walks a list forward one page at a time. */
export class Pager<Row, Cursor> {
  /** The number of the page shown last; 0 before the first page. */
  page = 0;
  /** Whether the list has no rows after the page shown last. */
  done = false;
  private next: Cursor | undefined;

  constructor(
    private readonly fetchPage: FetchPage<Row, Cursor>,
    private readonly limit: number,
  ) {}

  /**
   * Fetches the next page and returns its rows. The pager's state changes
   * only when the fetch succeeds, so a failed page can be retried.
   */
  async nextPage(): Promise<Row[]> {
    if (this.done) return [];
    const first = this.page === 0;
    const got = await this.fetchPage(first ? undefined : this.next, this.limit);
    this.done = got.next === undefined;
    if (got.rows.length === 0 && !first) {
      return got.rows;
    }
    this.page++;
    this.next = got.next;
    return got.rows;
  }
}
