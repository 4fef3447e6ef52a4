/**
 * The embedded service's text embedding. No embedding model small enough (≤ 100 MB) whose weights
 * ship inside an npm package and load offline was found (see the README's knowledge section), so
 * semantic search uses this deterministic local embedding instead of the knowledge base's model:
 * stemmed words (Orama's English tokenizer, without stop words), neighbouring word pairs and
 * character trigrams of each word, hashed into a fixed number of signed dimensions (the hashing
 * trick), weighted by sub-linear term frequency and normalised to unit length. Texts that share
 * words, word stems or word fragments get a cosine similarity near 1; unrelated texts near 0.
 */
import { createHash } from 'node:crypto';
import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { STOPWORDS } from './chunking.js';

export const EMBEDDING_DIMENSIONS = 512;

/**
 * The most characters of a word the tokenizer reads (the rest of a longer one is dropped). Orama
 * spreads a word's characters into one call's arguments (`replaceDiacritics`), so one word of
 * ~120,000 letters overflowed the stack: a chat query with annotation reply on, or an annotation
 * or a document holding one, was a 500.
 */
const MAX_WORD_CHARACTERS = 1024;

/** Orama's English tokenizer with stemming, shared by the full-text index and the embedding. */
export const TOKENIZER = oramaTokenizer.createTokenizer({ language: 'english', stemming: true, stopWords: [...STOPWORDS] });
const normalizeToken = TOKENIZER.normalizeToken;
TOKENIZER.normalizeToken = function (prop, token, withCache) {
  return normalizeToken.call(this, prop, token.slice(0, MAX_WORD_CHARACTERS), withCache);
};

const WEIGHTS = { word: 1, pair: 0.5, trigram: 0.25 } as const;

function bucket(feature: string): { index: number; sign: number } {
  const digest = createHash('sha1').update(feature).digest();
  return { index: digest.readUInt32LE(0) % EMBEDDING_DIMENSIONS, sign: digest[4]! & 1 ? 1 : -1 };
}

function features(text: string): Map<string, number> {
  const words = TOKENIZER.tokenize(text, 'english', undefined, false);
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  words.forEach((word, i) => {
    add(`w:${word}`, WEIGHTS.word);
    if (i > 0) add(`p:${words[i - 1]} ${word}`, WEIGHTS.pair);
    const padded = `^${word}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`t:${padded.slice(j, j + 3)}`, WEIGHTS.trigram);
  });
  return counts;
}

const cache = new Map<string, number[]>();
const CACHE_LIMIT = 20_000;

/** The unit-length embedding of `text` (all zeros for text without words). */
export function embed(text: string): number[] {
  const cached = cache.get(text);
  if (cached) return cached;
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const [feature, weight] of features(text)) {
    const { index, sign } = bucket(feature);
    vector[index]! += sign * (1 + Math.log(weight + 1));
  }
  const norm = Math.hypot(...vector);
  const unit = norm ? vector.map((v) => v / norm) : vector;
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(text, unit);
  return unit;
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
