/**
 * The companion elements' own terms, beside the form's (`terms.ts`, whose `loading`, `error`,
 * `retry` and `cancel` they share): the same `|`-separated tables in `COMPANION_KEYS` order,
 * the same locale lookup.
 */
import { termsFor, type Terms } from './terms.js';

export const COMPANION_KEYS = [
  'more', 'empty', 'untitled', 'conversations', 'sortBy', 'byActive', 'byInactive', 'byNewest', 'byOldest',
  'rename', 'del', 'confirmDelete', 'newName', 'save', 'deleted', 'saved', 'variables', 'filter',
  'noConversation', 'noVariables', 'badJson', 'readOnly', 'like', 'dislike', 'comment', 'send', 'thanks',
  'revoked', 'play', 'pause', 'stop', 'tapToPlay', 'progress',
] as const;

export type CompanionTerms = Terms & Record<(typeof COMPANION_KEYS)[number], string>;

const TABLES: Record<string, string | Record<string, string>> = {
  en: 'Load more|No conversations yet.|New conversation|Conversations|Sort by|Recently active|Least recently active|Newest|Oldest|Rename|Delete|Delete “{0}”?|New name|Save|Deleted.|Saved.|Conversation variables|Filter by name|Choose a conversation to see its variables.|No variables.|Enter valid JSON.|Read only|Like|Dislike|Add a comment|Send|Thanks for your feedback.|Feedback removed.|Play|Pause|Stop|Tap to play|Playback position',
  'zh-Hans': '加载更多|还没有对话。|新对话|对话|排序方式|最近活跃|最早活跃|最新创建|最早创建|重命名|删除|删除“{0}”？|新名称|保存|已删除。|已保存。|对话变量|按名称筛选|选择一个对话以查看其变量。|没有变量。|请输入有效的 JSON。|只读|赞|踩|添加评论|发送|感谢你的反馈。|已撤销反馈。|播放|暂停|停止|点按播放|播放进度',
  ja: 'さらに読み込む|会話はまだありません。|新しい会話|会話|並べ替え|最近のアクティビティ順|古いアクティビティ順|新しい順|古い順|名前を変更|削除|「{0}」を削除しますか？|新しい名前|保存|削除しました。|保存しました。|会話変数|名前で絞り込む|会話を選ぶと変数が表示されます。|変数はありません。|有効な JSON を入力してください。|読み取り専用|いいね|よくない|コメントを追加|送信|フィードバックをありがとうございます。|フィードバックを取り消しました。|再生|一時停止|停止|タップして再生|再生位置',
};

/** Adds or replaces a locale's companion terms. */
export function registerCompanionTerms(locale: string, terms: Record<(typeof COMPANION_KEYS)[number], string>): void {
  TABLES[locale] = terms;
}

/** The form's terms for `locale` with the companions' over them; `host` renders again once a lazy locale arrives. */
export function companionTerms(locale: string, host?: { requestUpdate(): void }): CompanionTerms {
  const lower = locale.toLowerCase();
  const key = [locale, lower.startsWith('zh') ? 'zh-Hans' : lower.split('-')[0]!].find((k) => TABLES[k]) ?? 'en';
  let table = TABLES[key]!;
  if (typeof table === 'string') {
    const parts = table.split('|');
    TABLES[key] = table = Object.fromEntries(COMPANION_KEYS.map((k, i) => [k, parts[i]!]));
  }
  return { ...termsFor(locale, host), ...table } as CompanionTerms;
}
