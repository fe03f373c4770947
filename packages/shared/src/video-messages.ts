/**
 * Messages of the video generation surfaces (issue 34), part of the server's catalogue
 * (messages.ts `SERVER_MESSAGES`). `{name}` placeholders are filled by the caller.
 */
export const VIDEO_MESSAGES = {
  VIDEO_BODY_INVALID: { zh: '请求体必须是 JSON 对象或 multipart 表单', en: 'The body must be a JSON object or a multipart form' },
  VIDEO_PROMPT_REQUIRED: { zh: '请填写提示词（prompt）', en: 'A prompt is required' },
  VIDEO_PROMPT_TOO_LONG: { zh: '提示词过长：最多 {max} 个字符', en: 'The prompt is too long: at most {max} characters' },
  VIDEO_MODEL_REQUIRED: { zh: '请指定模型（model）', en: 'A model is required' },
  VIDEO_FIELD_INVALID: { zh: '参数 {field} 无效：{reason}', en: 'Invalid {field}: {reason}' },
  VIDEO_SECONDS_UNSUPPORTED: { zh: '模型 {model} 不支持时长 {seconds} 秒，可选：{allowed}', en: 'Model {model} cannot make a {seconds} s video; it makes {allowed}' },
  VIDEO_SIZE_UNSUPPORTED: { zh: '模型 {model} 不支持分辨率 {size}，可选：{allowed}', en: 'Model {model} does not make {size} videos; it makes {allowed}' },
  VIDEO_IMAGES_UNSUPPORTED: { zh: '模型 {model} 最多接受 {max} 张参考图', en: 'Model {model} takes at most {max} reference images' },
  VIDEO_IMAGE_INVALID: { zh: '参考图必须是 http(s) 地址或 base64 图片（data:image/…），且不超过 {max} MB', en: 'A reference image must be an http(s) URL or a base64 image (data:image/…) of at most {max} MB' },
  VIDEO_NOT_VIDEO_MODEL: { zh: '模型 {model} 的可用渠道不支持视频生成', en: 'The channels of model {model} do not generate videos' },
  VIDEO_UNPRICED: { zh: '模型 {model} 的视频价格未配置（分辨率 {resolution}），请联系管理员设置', en: 'Model {model} has no video price for {resolution}; please ask the administrator to set one' },
  VIDEO_TASK_NOT_FOUND: { zh: '视频任务不存在：{id}', en: 'No such video task: {id}' },
  VIDEO_NOT_READY: { zh: '视频尚未生成完成（状态 {status}）', en: 'The video is not ready (status {status})' },
  VIDEO_DELETE_UNFINISHED: { zh: '只能删除已完成或已失败的视频', en: 'Only a completed or failed video can be deleted' },
  VIDEO_CONTENT_FAILED: { zh: '获取视频内容失败：{reason}', en: 'The video could not be fetched: {reason}' },
  VIDEO_UPSTREAM_REFUSED: { zh: '上游拒绝了视频任务：{reason}', en: 'The upstream refused the video task: {reason}' },
  VIDEO_MODERATION: { zh: '上游内容审核未通过：{reason}', en: "The provider's content policy refused the request: {reason}" },
  VIDEO_UPSTREAM_FAILED: { zh: '请求视频上游失败：{reason}', en: 'The video upstream could not be reached: {reason}' },
  OPTION_VIDEO_PRICE_INVALID: {
    zh: '视频价格须为 {"模型": {"720p": 每秒美元价格}} 形式，分辨率写作短边像素加 p（如 720p）或 *，价格为非负数',
    en: 'Video prices take the form {"model": {"720p": USD per second}}: tiers are the short side in pixels plus p (like 720p) or *, prices non-negative numbers',
  },
} as const satisfies Record<string, { zh: string; en: string }>;

/** A catalogue message with its `{name}` placeholders filled. */
export function fillMessage(text: string, vars: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
}
