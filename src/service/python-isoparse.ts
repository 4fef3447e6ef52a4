/**
 * dateutil's `isoparse` (2.9), which Dify's `GET /workflows/logs` reads its `created_at__before`
 * and `created_at__after` with: calendar (`2024-05-01`, `20240501`, `2024-05`, `2024`), ordinal
 * (`2024-122`) and week (`2024-W18-3`) dates, then any one separator character and a time
 * (`hh`, `hh:mm`, `hhmm`, seconds, a fraction, `Z` or an offset). Its refusals are ValueErrors the
 * service answers as `400 invalid_param` with their text, reproduced here: Python's `int()` on
 * ASCII bytes (`invalid literal for int() with base 10: b'…'`), `datetime`'s range checks, and
 * dateutil's own messages. A naive time is UTC, as Dify stores times.
 */
import { badParam } from './errors.js';

class IsoError extends Error {}

/** Milliseconds since the epoch of `text`, or a `400 invalid_param` with dateutil's refusal. */
export function isoparse(text: string): number {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof IsoError) throw badParam(error.message);
    throw error;
  }
}

function parse(text: string): number {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(text)) throw new IsoError('ISO-8601 strings should contain only ASCII characters');
  let date: [number, number, number];
  let pos: number;
  try {
    [date, pos] = commonDate(text);
  } catch (error) {
    if (!(error instanceof IsoError)) throw error;
    [date, pos] = uncommonDate(text);
  }
  let time = [0, 0, 0, 0];
  let offsetMinutes = 0;
  if (text.length > pos) ({ time, offsetMinutes } = isotime(text.slice(pos + 1)));
  const dayAfter = time[0] === 24;
  if (dayAfter) time[0] = 0;
  checkDateTime(date, time);
  const ms = Date.UTC(date[0], date[1] - 1, date[2], time[0], time[1], time[2], Math.floor(time[3]! / 1000));
  // Date.UTC reads years 0–99 as 1900–1999.
  const fixed = date[0] < 100 ? new Date(ms).setUTCFullYear(date[0]) : ms;
  return fixed + (dayAfter ? 86_400_000 : 0) - offsetMinutes * 60_000;
}

/** Python's `int()` of ASCII bytes: optional sign, digits with single underscores, spaces around. */
function pyInt(bytes: string): number {
  if (!/^\s*[+-]?\d+(_\d+)*\s*$/.test(bytes)) throw new IsoError(`invalid literal for int() with base 10: ${bytesRepr(bytes)}`);
  return Number(bytes.trim().replaceAll('_', ''));
}

function bytesRepr(bytes: string): string {
  const quote = bytes.includes("'") && !bytes.includes('"') ? '"' : "'";
  const escaped = [...bytes]
    .map((c) => {
      if (c === '\\') return '\\\\';
      if (c === quote) return `\\${c}`;
      if (c === '\t') return '\\t';
      if (c === '\n') return '\\n';
      if (c === '\r') return '\\r';
      const code = c.charCodeAt(0);
      return code < 32 || code === 127 ? `\\x${code.toString(16).padStart(2, '0')}` : c;
    })
    .join('');
  return `b${quote}${escaped}${quote}`;
}

function commonDate(s: string): [[number, number, number], number] {
  if (s.length < 4) throw new IsoError('ISO string too short');
  const date: [number, number, number] = [pyInt(s.slice(0, 4)), 1, 1];
  let pos = 4;
  if (pos >= s.length) return [date, pos];
  const hasSep = s[pos] === '-';
  if (hasSep) pos += 1;
  if (s.length - pos < 2) throw new IsoError('Invalid common month');
  date[1] = pyInt(s.slice(pos, pos + 2));
  pos += 2;
  if (pos >= s.length) {
    if (hasSep) return [date, pos];
    throw new IsoError('Invalid ISO format');
  }
  if (hasSep) {
    if (s[pos] !== '-') throw new IsoError('Invalid separator in ISO string');
    pos += 1;
  }
  if (s.length - pos < 2) throw new IsoError('Invalid common day');
  date[2] = pyInt(s.slice(pos, pos + 2));
  return [date, pos + 2];
}

function uncommonDate(s: string): [[number, number, number], number] {
  if (s.length < 4) throw new IsoError('ISO string too short');
  const year = pyInt(s.slice(0, 4));
  const hasSep = s[4] === '-';
  let pos = 4 + (hasSep ? 1 : 0);
  let base: Date;
  if (s[pos] === 'W') {
    pos += 1;
    const week = pyInt(s.slice(pos, pos + 2));
    pos += 2;
    let day = 1;
    if (s.length > pos) {
      if ((s[pos] === '-') !== hasSep) throw new IsoError('Inconsistent use of dash separator');
      pos += hasSep ? 1 : 0;
      day = pyInt(s.slice(pos, pos + 1));
      pos += 1;
    }
    if (!(week > 0 && week < 54)) throw new IsoError(`Invalid week: ${week}`);
    if (!(day > 0 && day < 8)) throw new IsoError(`Invalid weekday: ${day}`);
    checkYear(year);
    const jan4 = utcDate(year, 1, 4);
    const isoWeekday = jan4.getUTCDay() || 7;
    base = new Date(jan4.getTime() + ((week - 1) * 7 + (day - 1) - (isoWeekday - 1)) * 86_400_000);
  } else {
    if (s.length - pos < 3) throw new IsoError('Invalid ordinal day');
    const ordinal = pyInt(s.slice(pos, pos + 3));
    pos += 3;
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    if (ordinal < 1 || ordinal > 365 + (leap ? 1 : 0)) throw new IsoError(`Invalid ordinal day ${ordinal} for year ${year}`);
    checkYear(year);
    base = new Date(utcDate(year, 1, 1).getTime() + (ordinal - 1) * 86_400_000);
  }
  return [[base.getUTCFullYear(), base.getUTCMonth() + 1, base.getUTCDate()], pos];
}

function utcDate(year: number, month: number, day: number): Date {
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCFullYear(year);
  return date;
}

function isotime(s: string): { time: number[]; offsetMinutes: number } {
  const time = [0, 0, 0, 0];
  let offsetMinutes = 0;
  let pos = 0;
  let comp = -1;
  if (s.length < 2) throw new IsoError('ISO time too short');
  let hasSep = false;
  while (pos < s.length && comp < 5) {
    comp += 1;
    if ('-+Zz'.includes(s[pos]!)) {
      offsetMinutes = tzOffset(s.slice(pos));
      pos = s.length;
      break;
    }
    if (comp === 1 && s[pos] === ':') {
      hasSep = true;
      pos += 1;
    } else if (comp === 2 && hasSep) {
      if (s[pos] !== ':') throw new IsoError('Inconsistent use of colon separator');
      pos += 1;
    }
    if (comp < 3) {
      time[comp] = pyInt(s.slice(pos, pos + 2));
      pos += 2;
    }
    if (comp === 3) {
      const fraction = /^[.,]([0-9]+)/.exec(s.slice(pos));
      if (!fraction) continue;
      const micro = fraction[1]!.slice(0, 6);
      time[3] = Number(micro) * 10 ** (6 - micro.length);
      pos += fraction[0].length;
    }
  }
  if (pos < s.length) throw new IsoError('Unused components in ISO string');
  if (time[0] === 24 && time.slice(1).some((c) => c !== 0)) throw new IsoError('Hour may only be 24 at 24:00:00.000');
  return { time, offsetMinutes };
}

function tzOffset(s: string): number {
  if (s === 'Z' || s === 'z') return 0;
  if (![3, 5, 6].includes(s.length)) throw new IsoError('Time zone offset must be 1, 3, 5 or 6 characters');
  const sign = s[0] === '-' ? -1 : s[0] === '+' ? 1 : 0;
  if (!sign) throw new IsoError('Time zone offset requires sign');
  const hours = pyInt(s.slice(1, 3));
  const minutes = s.length === 3 ? 0 : pyInt(s.slice(s[3] === ':' ? 4 : 3));
  if (hours === 0 && minutes === 0) return 0;
  if (minutes > 59) throw new IsoError('Invalid minutes in time zone offset');
  if (hours > 23) throw new IsoError('Invalid hours in time zone offset');
  return sign * (hours * 60 + minutes);
}

function checkYear(year: number): void {
  if (year < 1 || year > 9999) throw new IsoError(`year ${year} is out of range`);
}

/** `datetime(...)`'s checks, in its order. */
function checkDateTime([year, month, day]: [number, number, number], [hour, minute, second, micro]: number[]): void {
  checkYear(year);
  if (month < 1 || month > 12) throw new IsoError('month must be in 1..12');
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0) ? 1 : 0);
  if (day < 1 || day > days) throw new IsoError('day is out of range for month');
  if (hour! < 0 || hour! > 23) throw new IsoError('hour must be in 0..23');
  if (minute! < 0 || minute! > 59) throw new IsoError('minute must be in 0..59');
  if (second! < 0 || second! > 59) throw new IsoError('second must be in 0..59');
  if (micro! < 0 || micro! > 999_999) throw new IsoError('microsecond must be in 0..999999');
}
