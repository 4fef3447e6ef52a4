/** Japanese terms; loaded the first time a `ja` locale is in force. */
import type { Terms } from '../shared/terms.js';

const terms: Terms = {
  loading: '読み込み中…',
  waiting: '次のステップを待っています…',
  ready: '入力してください。',
  submitting: '送信中…',
  submitted: '送信しました。',
  finished: 'ワークフローが完了しました。',
  failed: 'ワークフローが失敗しました。',
  error: 'エラーが発生しました。',
  retry: '再試行',
  undrivable: 'このステップはメールで回答するため、ここでは完了できません。',
  expired: 'このフォームは期限切れです。',
  timeout: 'このステップは時間切れになりました。',
  taken: 'このフォームは既に送信されています。',
  untitled: '入力をお願いします',
  chose: '「{0}」を選択しました。',
  timeLeft: '残り時間：{0}',
  fix: '入力内容を確認してください。',
  required: 'この項目は必須です。',
  select: '選択してください…',
  choose: 'ファイルを選択',
  drop: 'またはここにドロップ・貼り付け',
  url: 'ファイルのリンク',
  add: 'リンクを追加',
  badUrl: 'http:// または https:// で始まるリンクを入力してください。',
  badType: '{0}：このファイル形式は使用できません。',
  tooMany: 'ファイルは最大 {0} 個までです。',
  pending: 'アップロードの完了を待つか、失敗したファイルを削除してください。',
  uploading: 'アップロード中（{0}）…',
  uploadFailed: 'アップロードに失敗しました。',
  cancel: 'キャンセル',
  remove: '削除',
  allowed: '使用可能：{0}。',
};

export default terms;
