// The view of one paged list: a page counter, an error box, a table of the
// current page's rows and a "Next page" button. The section element carries
// data-state (idle, loading, ready, end, error) and data-page (the page shown)
// so that people and tests can tell where the list is.
import { describeError } from "./errors";
import { Pager } from "./pager";

/** The states of a list view, as written to its section's data-state. */
export type ListState = "idle" | "loading" | "ready" | "end" | "error";

/** ListView binds a Pager to one list section of the page. */
export class ListView<Row, Cursor> {
  private readonly pageEl: HTMLElement;
  private readonly rangeEl: HTMLElement;
  private readonly errorEl: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private readonly nextButton: HTMLButtonElement;
  private pager: Pager<Row, Cursor> | undefined;
  private shown = 0;
  private generation = 0;

  constructor(
    private readonly section: HTMLElement,
    private readonly cells: (row: Row) => Node[],
  ) {
    this.pageEl = required(section, ".page");
    this.rangeEl = required(section, ".range");
    this.errorEl = required(section, ".error");
    this.body = required(section, "tbody");
    this.nextButton = required(section, "button.next");
    this.nextButton.addEventListener("click", () => void this.next());
  }

  /** Starts the list over with pager and shows its first page. */
  async start(pager: Pager<Row, Cursor>): Promise<void> {
    this.generation++;
    this.pager = pager;
    this.shown = 0;
    this.body.replaceChildren();
    this.showPage();
    await this.next();
  }

  /** Shows the next page, or the error that fetching it ended with. */
  async next(): Promise<void> {
    const pager = this.pager;
    if (!pager || pager.done) return;
    const generation = this.generation;
    this.setState("loading");
    this.hideError();
    try {
      const rows = await pager.nextPage();
      if (generation !== this.generation) return;
      if (rows.length > 0) {
        const first = this.shown + 1;
        this.body.replaceChildren(...rows.map((row, i) => this.rowElement(first + i, row)));
        this.shown += rows.length;
      }
      this.showPage();
      this.setState(pager.done ? "end" : "ready");
    } catch (err) {
      if (generation !== this.generation) return;
      this.showError(err);
      this.setState("error");
    }
  }

  private rowElement(n: number, row: Row): HTMLTableRowElement {
    const tr = document.createElement("tr");
    const num = document.createElement("td");
    num.textContent = String(n);
    tr.append(num);
    for (const cell of this.cells(row)) {
      const td = document.createElement("td");
      td.append(cell);
      tr.append(td);
    }
    return tr;
  }

  private showPage(): void {
    const page = this.pager?.page ?? 0;
    this.section.dataset.page = String(page);
    this.pageEl.textContent = `Page ${page}`;
    const count = this.body.rows.length;
    let range = count > 0 ? `rows ${this.shown - count + 1}–${this.shown}` : page > 0 ? "no rows" : "";
    if (this.pager?.done && page > 0) range += " · end of list";
    this.rangeEl.textContent = range;
  }

  private setState(state: ListState): void {
    this.section.dataset.state = state;
    this.nextButton.disabled = state === "loading" || state === "end" || !this.pager;
  }

  private showError(err: unknown): void {
    const e = describeError(err);
    const code = document.createElement("span");
    code.className = "code";
    code.textContent = `[${e.code}]`;
    const parts: Node[] = [code, document.createTextNode(` ${e.message}`)];
    if (e.jsonRpc) {
      parts.push(document.createTextNode(`\nJSON-RPC error ${e.jsonRpc}`));
    }
    if (e.hint) {
      parts.push(document.createTextNode(`\n${e.hint}`));
    }
    this.errorEl.replaceChildren(...parts);
    this.errorEl.hidden = false;
  }

  private hideError(): void {
    this.errorEl.hidden = true;
    this.errorEl.replaceChildren();
  }
}

function required<T extends Element>(root: ParentNode, selector: string): T {
  const el = root.querySelector<T>(selector);
  if (!el) throw new Error(`page markup has no ${selector}`);
  return el;
}
