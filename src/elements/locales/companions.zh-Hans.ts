/** Simplified Chinese terms of the companion elements (`COMPANION_KEYS` order); loaded the first time a `zh` locale is in force. */
export default '加载更多|还没有对话。|新对话|对话|排序方式|最近活跃|最早活跃|最新创建|最早创建|重命名|删除|删除“{0}”？|新名称|保存|已删除。|已保存。|对话变量|按名称筛选|选择一个对话以查看其变量。|没有变量。|请输入有效的 JSON。|只读|赞|踩|添加评论|发送|感谢你的反馈。|已撤销反馈。|播放|暂停|停止|点按播放|播放进度|只能使用字母、数字和“.”“_”“-”。|请输入数字。|无法加载：缺少 session-url 属性。';
