/** Simplified Chinese terms; loaded the first time a `zh` locale is in force. */
import type { Terms } from '../shared/terms.js';

const terms: Terms = {
  loading: '加载中…',
  waiting: '正在等待下一步…',
  ready: '请填写表单。',
  submitting: '正在提交…',
  submitted: '已提交。',
  finished: '工作流已完成。',
  failed: '工作流失败。',
  error: '出错了。',
  retry: '重试',
  undrivable: '此步骤需通过邮件回复，无法在此完成。',
  expired: '此表单已过期。',
  timeout: '此步骤已超时。',
  taken: '此表单已被提交。',
  untitled: '需要您的输入',
  chose: '你选择了“{0}”。',
  timeLeft: '剩余时间：{0}',
  fix: '请检查标出的字段。',
  required: '此项为必填项。',
  select: '请选择…',
  choose: '选择文件',
  drop: '或将文件拖放、粘贴到此处',
  url: '文件链接',
  add: '添加链接',
  badUrl: '请输入以 http:// 或 https:// 开头的链接。',
  badType: '{0}：不支持此文件类型。',
  tooMany: '最多 {0} 个文件。',
  pending: '请等待上传完成，或移除上传失败的文件。',
  uploading: '正在上传（{0}）…',
  uploadFailed: '上传失败。',
  cancel: '取消',
  remove: '移除',
  allowed: '支持：{0}。',
};

export default terms;
