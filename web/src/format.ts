// Formatting of Hive values for display.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Asset } from "./gen/hive/types/v1/asset_pb";

/** The symbols of the assets database_api returns, by NAI. */
const symbols: Record<string, string> = {
  "@@000000021": "HIVE",
  "@@000000013": "HBD",
  "@@000000037": "VESTS",
};

/** Formats an asset as hived's legacy string does: "1.234 HIVE". */
export function formatAsset(a: Asset | undefined): string {
  if (!a) return "";
  const amount = a.amount.toString();
  const neg = amount.startsWith("-");
  const digits = (neg ? amount.slice(1) : amount).padStart(a.precision + 1, "0");
  const whole = digits.slice(0, digits.length - a.precision);
  const frac = a.precision > 0 ? "." + digits.slice(digits.length - a.precision) : "";
  return `${neg ? "-" : ""}${whole}${frac} ${symbols[a.nai] ?? a.nai}`;
}

/** Formats a timestamp as a UTC date, "2016-03-24". */
export function formatDate(t: Timestamp | undefined): string {
  if (!t) return "";
  return timestampDate(t).toISOString().slice(0, 10);
}

/** Formats an integer with thin groupings of three digits. */
export function formatInteger(n: bigint): string {
  return n.toLocaleString("en-US");
}
