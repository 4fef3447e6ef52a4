/**
 * Questions the user might ask next, for `GET /messages/{message_id}/suggested`. The real service
 * asks its model for "the three most likely questions that human would ask, … each under 20
 * characters", given the conversation's last three exchanges (`SUGGESTED_QUESTIONS_PROMPT`,
 * `get_history_prompt_text(message_limit=3)`). The embedded service has no model: like its
 * answers, its questions are deterministic, built from the words the exchanges use most (the
 * latest answer counting most), so the same conversation always gets the same three.
 */

/** One exchange of the history: what was asked and what was answered. */
export interface Exchange {
  query: string;
  answer: string;
}

const COUNT = 3;
/** Longest word put in a question, so questions stay near the prompt's 20 characters. */
const MAX_WORD = 14;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;
/** Words that say nothing about the topic (English; other languages' words all count). */
const STOP_WORDS = new Set(
  'about above after again also among another answer because been before being below between both could does doing down during each either every from further have having here hers herself himself into itself just like more most much must myself never only other ours over same should some such than that their theirs them then there these they this those through under until very were what when where which while whom whose will with within would your yours yourself'.split(' '),
);
const TEMPLATES = [(word: string) => `What is ${word}?`, (word: string) => `Why ${word}?`, (word: string) => `More on ${word}?`];
/** When the history has too few telling words. */
const FALLBACKS = ['Can you explain?', 'An example?', 'What next?'];

/** Three questions from `history` (oldest exchange first). */
export function suggestQuestions(history: readonly Exchange[]): string[] {
  const scores = new Map<string, { word: string; score: number; order: number }>();
  let order = 0;
  const weigh = (text: string, weight: number) => {
    for (const [word] of text.matchAll(WORD)) {
      const key = word.toLowerCase();
      if (word.length > MAX_WORD || STOP_WORDS.has(key) || /^\p{N}+$/u.test(word) || (/^[a-z'’-]+$/i.test(word) && word.length < 4)) continue;
      const entry = scores.get(key) ?? { word, score: 0, order: order++ };
      entry.score += weight;
      scores.set(key, entry);
    }
  };
  // The latest answer first (its words come first among equals), then its question, then the older exchanges.
  const latest = history.at(-1);
  if (latest) weigh(latest.answer, 3), weigh(latest.query, 2);
  for (const exchange of history.slice(0, -1).reverse()) weigh(exchange.answer, 1), weigh(exchange.query, 1);
  const words = [...scores.values()].sort((a, b) => b.score - a.score || a.order - b.order).map((e) => e.word);
  return TEMPLATES.map((template, i) => (words[i] ? template(words[i]!) : FALLBACKS[i]!)).slice(0, COUNT);
}
