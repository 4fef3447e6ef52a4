/**
 * Cleaning and chunking of document text the way the real service's indexing runner does it:
 * the default clean plus the enabled pre-processing rules, then the text splitter chosen by the
 * process rule (automatic: recursive merge; custom: fixed separator, recursive split of what is too
 * large; hierarchical: parent chunks, each split again into child chunks).
 *
 * Chunk sizes are in tokens. The real service counts them with the embedding model's tokenizer
 * (GPT-2's by default); `estimateTokens` approximates GPT-2 counts without a vocabulary.
 */
import { createHash } from 'node:crypto';
import type { DocForm } from '../../protocol/index.js';

export interface SegmentationRule {
  separator: string;
  max_tokens: number;
  chunk_overlap: number;
}

export interface ResolvedProcessRule {
  mode: 'automatic' | 'custom' | 'hierarchical';
  rules: {
    pre_processing_rules: { id: string; enabled: boolean }[];
    segmentation: SegmentationRule;
    parent_mode?: 'full-doc' | 'paragraph';
    subchunk_segmentation?: SegmentationRule;
  };
}

/** The real service's rules for `mode: automatic`. */
export const AUTOMATIC_RULES: ResolvedProcessRule['rules'] = {
  pre_processing_rules: [
    { id: 'remove_extra_spaces', enabled: true },
    { id: 'remove_urls_emails', enabled: false },
  ],
  segmentation: { separator: '\n', max_tokens: 500, chunk_overlap: 50 },
};

/** Rules used for a `hierarchical_model` document that names none. */
export const DEFAULT_HIERARCHICAL_RULES: ResolvedProcessRule['rules'] = {
  pre_processing_rules: [
    { id: 'remove_extra_spaces', enabled: true },
    { id: 'remove_urls_emails', enabled: false },
  ],
  segmentation: { separator: '\n\n', max_tokens: 500, chunk_overlap: 0 },
  parent_mode: 'paragraph',
  subchunk_segmentation: { separator: '\n', max_tokens: 200, chunk_overlap: 0 },
};

// GPT-2's pre-tokenizer: every match is at least one token.
const PRE_TOKEN = /'(?:s|t|re|ve|m|ll|d)| ?[\p{L}\p{M}]+| ?\p{N}+| ?[^\s\p{L}\p{M}\p{N}]+|\s+(?!\S)|\s+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Approximate GPT-2 token count: one token per pre-token, more for long words, numbers and
 * punctuation runs (which BPE splits), one per CJK character.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PRE_TOKEN)) {
    const piece = match[0];
    const core = piece.trimStart();
    if (core === '') {
      tokens += 1;
    } else if (CJK.test(core)) {
      let local = 0;
      for (const ch of core) local += CJK.test(ch) ? 1 : 0.25;
      tokens += Math.ceil(local);
    } else if (/^[\p{L}\p{M}]+$/u.test(core)) {
      tokens += core.length <= 8 ? 1 : Math.ceil(core.length / 5);
    } else if (/^\p{N}+$/u.test(core)) {
      tokens += Math.ceil(core.length / 3);
    } else {
      tokens += Math.ceil(core.length / 2);
    }
  }
  return tokens;
}

/** Word count as the real service reports it: characters of the chunk text. */
export const wordCount = (text: string): number => [...text].length;

/** `generate_text_hash`: sha256 of the text followed by "None". */
export const textHash = (text: string): string => createHash('sha256').update(`${text}None`).digest('hex');

/** The default clean, then the enabled pre-processing rules (`remove_stopwords` is accepted and, like the real service, has no effect). */
export function cleanText(text: string, preProcessing: { id: string; enabled: boolean }[]): string {
  let out = text
    .replace(/<\|/g, '<')
    .replace(/\|>/g, '>')
    // eslint-disable-next-line no-control-regex
    .replace(/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\uFFFE]/g, '');
  for (const rule of preProcessing) {
    if (!rule.enabled) continue;
    if (rule.id === 'remove_extra_spaces') {
      out = out.replace(/\n{3,}/g, '\n\n').replace(/[\t\f\r\x20\u00a0\u1680\u180e\u2000-\u200a\u202f\u205f\u3000]{2,}/g, ' ');
    } else if (rule.id === 'remove_urls_emails') {
      out = out.replace(/[a-zA-Z0-9_.+-]+@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+/g, '').replace(/https?:\/\/[^\s]+/g, '');
    }
  }
  return out;
}

const RECURSIVE_SEPARATORS = ['\n\n', '。', '. ', ' ', ''];

/**
 * Characters of chunk text the current document may still produce (set by `chunkText`; the
 * splitting is synchronous). An overlap close to the chunk size moves each chunk on by a split or
 * two, so the chunks repeat the text hundreds of times over: a 300 KB text with 3,999 of 4,000
 * tokens of overlap made 588 MB of chunks and held the service for half a minute. Ten times the
 * text is far more than any sensible overlap yields (at most about twice); past it the document
 * fails, as an indexing error.
 */
let budget = Infinity;

function emit(chunks: string[], chunk: string): void {
  if ((budget -= chunk.length) < 0) throw new IndexingError('The chunk overlap is too close to the chunk size: the chunks would repeat the text more than ten times over.');
  chunks.push(chunk);
}

/** Appends one by one: spreading a long list into `push` overflows the stack. */
function append(to: string[], from: string[]): void {
  for (const item of from) to.push(item);
}

/** Joins small splits into chunks of at most `size` tokens, carrying `overlap` tokens over. */
function mergeSplits(splits: string[], separator: string, size: number, overlap: number): string[] {
  const sepLen = separator ? estimateTokens(separator) : 0;
  const lens = splits.map(estimateTokens);
  const chunks: string[] = [];
  // The current chunk is splits[start..end) with `total` tokens.
  let start = 0;
  let total = 0;
  for (let end = 0; end < splits.length; end++) {
    const len = lens[end]!;
    const count = end - start;
    if (count && total + len + sepLen > size) {
      const chunk = splits.slice(start, end).join(separator);
      if (chunk.trim()) emit(chunks, chunk);
      while (end - start > 0 && (total > overlap || (total + len + sepLen > size && total > 0))) {
        total -= lens[start]! + (end - start > 1 ? sepLen : 0);
        start++;
      }
    }
    total += len + (end - start > 0 ? sepLen : 0);
  }
  const last = splits.slice(start).join(separator);
  if (last.trim()) emit(chunks, last);
  return chunks;
}

/** Splits on the first separator present, merges, and splits again what is still too large. */
function recursiveSplit(text: string, separators: string[], size: number, overlap: number): string[] {
  let index = separators.findIndex((s) => s === '' || text.includes(s));
  if (index < 0) index = separators.length - 1;
  const separator = separators[index] ?? '';
  const rest = separators.slice(index + 1);
  const splits = separator ? text.split(separator) : [...text];
  const chunks: string[] = [];
  let good: string[] = [];
  for (const split of splits) {
    if (estimateTokens(split) <= size) {
      good.push(split);
      continue;
    }
    if (good.length) {
      append(chunks, mergeSplits(good, separator, size, overlap));
      good = [];
    }
    if (rest.length) append(chunks, recursiveSplit(split, rest, size, overlap));
    else chunks.push(split);
  }
  if (good.length) append(chunks, mergeSplits(good, separator, size, overlap));
  return chunks;
}

/** `FixedRecursiveCharacterTextSplitter`: every piece between separators is a chunk unless too large. */
function fixedSplit(text: string, rule: SegmentationRule): string[] {
  const separator = rule.separator.replace(/\\n/g, '\n');
  const pieces = separator ? text.split(separator) : [text];
  const chunks: string[] = [];
  for (const piece of pieces) {
    if (estimateTokens(piece) > rule.max_tokens) append(chunks, recursiveSplit(piece, RECURSIVE_SEPARATORS, rule.max_tokens, rule.chunk_overlap));
    else chunks.push(piece);
  }
  return chunks;
}

/** Trims a chunk, drops a leading full stop, and drops what is left empty (as the indexing runner does). */
function tidy(chunks: string[]): string[] {
  const out: string[] = [];
  for (let chunk of chunks) {
    chunk = chunk.trim();
    if (chunk.startsWith('.') || chunk.startsWith('。')) chunk = chunk.slice(1).trim();
    if (chunk) out.push(chunk);
  }
  return out;
}

/** An indexing failure, reported as the document's `error` (the real service fails the same way, after accepting the document). */
export class IndexingError extends Error {}

function checkRule(rule: SegmentationRule, maxSegmentationTokens: number): void {
  if (rule.max_tokens < 50 || rule.max_tokens > maxSegmentationTokens) {
    throw new IndexingError(`Custom segment length should be between 50 and ${maxSegmentationTokens}.`);
  }
  if (rule.chunk_overlap > rule.max_tokens) {
    throw new IndexingError(`Got a larger chunk overlap (${rule.chunk_overlap}) than chunk size (${rule.max_tokens}), should be smaller.`);
  }
}

export interface Chunk {
  content: string;
  answer: string | null;
  children: string[];
}

/** Largest parent chunk of a full-doc hierarchical document, like the real service's limit. */
const FULL_DOC_MAX_TOKENS = 10_000;

/** Cleans and splits a document's text into chunks (and child chunks) per its process rule. */
export function chunkText(text: string, rule: ResolvedProcessRule, docForm: DocForm, maxSegmentationTokens: number): Chunk[] {
  const cleaned = cleanText(text, rule.rules.pre_processing_rules);
  budget = Math.max(10 * cleaned.length, 1 << 20);
  try {
    return chunkCleaned(cleaned, rule, docForm, maxSegmentationTokens);
  } finally {
    budget = Infinity;
  }
}

function chunkCleaned(cleaned: string, rule: ResolvedProcessRule, docForm: DocForm, maxSegmentationTokens: number): Chunk[] {
  const seg = rule.rules.segmentation;
  if (rule.mode === 'hierarchical') {
    const sub = rule.rules.subchunk_segmentation ?? DEFAULT_HIERARCHICAL_RULES.subchunk_segmentation!;
    checkRule(sub, maxSegmentationTokens);
    let parents: string[];
    if (rule.rules.parent_mode === 'full-doc') {
      parents = tidy([truncateTokens(cleaned, FULL_DOC_MAX_TOKENS)]);
    } else {
      checkRule(seg, maxSegmentationTokens);
      parents = tidy(fixedSplit(cleaned, seg));
    }
    return parents.map((parent) => ({ content: parent, answer: null, children: tidy(fixedSplit(parent, sub)) }));
  }
  let chunks: string[];
  if (rule.mode === 'automatic') {
    chunks = tidy(recursiveSplit(cleaned, RECURSIVE_SEPARATORS, seg.max_tokens, seg.chunk_overlap));
  } else {
    checkRule(seg, maxSegmentationTokens);
    chunks = tidy(fixedSplit(cleaned, seg));
  }
  if (docForm === 'qa_model') return chunks.flatMap(toQuestionAnswers);
  return chunks.map((content) => ({ content, answer: null, children: [] }));
}

/** A parent chunk's child chunks under a hierarchical rule (regenerated when the parent changes). */
export function childChunksOf(parent: string, rule: ResolvedProcessRule): string[] {
  return tidy(fixedSplit(parent, rule.rules.subchunk_segmentation ?? DEFAULT_HIERARCHICAL_RULES.subchunk_segmentation!));
}

function truncateTokens(text: string, max: number): string {
  if (estimateTokens(text) <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTokens(text.slice(0, mid)) <= max) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

/**
 * Q&A chunks. The real service asks an LLM to write question/answer pairs; without one, the
 * embedded service takes pairs the text states itself (`Q: … A: …` lines) and otherwise makes the
 * chunk's first sentence the question and the whole chunk the answer.
 */
function toQuestionAnswers(chunk: string): Chunk[] {
  const pairs = [...chunk.matchAll(/^\s*Q\d*[:：]\s*(.+?)\s*\n\s*A\d*[:：]\s*([\s\S]+?)(?=\n\s*Q\d*[:：]|$)/gm)];
  if (pairs.length) return pairs.map((m) => ({ content: m[1]!.trim(), answer: m[2]!.trim(), children: [] }));
  const sentence = /^[\s\S]+?[.?!。？！](?=\s|$)/.exec(chunk)?.[0] ?? chunk;
  return [{ content: sentence.trim().slice(0, 500), answer: chunk, children: [] }];
}

export const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be been but by can do does for from has have how i if in into is it its just may more most no not of on or ' +
    'our so than that the their them then there these they this to was we were what when where which who why will with you your ' +
    'also about after all any each every only other over such up out very should would could must our us')
    .split(' '),
);

/** Economy indexing keeps up to 10 keywords per chunk (the real service uses jieba's TF-IDF). */
export function extractKeywords(text: string, max = 10): string[] {
  const counts = new Map<string, number>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu)) {
    const word = match[0];
    if (word.length < 3 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map(([word]) => word);
}
