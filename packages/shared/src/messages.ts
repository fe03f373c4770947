/**
 * Server messages by stable code, in the console's two languages. The server answers in the
 * language of the request's Accept-Language (zh unless it asks for en), so the console shows
 * server errors in the language the user picked.
 */
export const SERVER_MESSAGES = {
  NOT_LOGGED_IN: { zh: '无权进行此操作，未登录且未提供 access token', en: 'No permission for this operation: not logged in and no access token provided' },
  SESSION_USER_MISMATCH: { zh: '无权进行此操作，与登录用户不匹配，请重新登录', en: 'Not logged in or session expired, please log in again' },
  ACCESS_TOKEN_INVALID: { zh: '无权进行此操作，access token 无效', en: 'No permission for this operation: invalid access token' },
  USER_BANNED: { zh: '用户已被封禁', en: 'User banned' },
  NO_PERMISSION: { zh: '无权进行此操作，权限不足', en: 'No permission for this operation' },
  INVALID_PARAMETER: { zh: '无效的参数', en: 'Invalid parameter' },
  INTERNAL: { zh: '服务器内部错误，请联系管理员', en: 'Server internal error, please contact the administrator' },
  LOGIN_REQUIRED_FIELDS: { zh: '请输入用户名和密码', en: 'Please enter username and password' },
  PASSWORD_LOGIN_DISABLED: { zh: '管理员关闭了密码登录', en: 'The administrator has turned off password login' },
  LOGIN_FAILED: { zh: '用户名或密码错误，或用户已被封禁', en: 'Username or password incorrect, or user banned' },
  REGISTER_DISABLED: { zh: '管理员关闭了新用户注册', en: 'The administrator has turned off new user registration' },
  PASSWORD_REGISTER_DISABLED: { zh: '管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册', en: 'Password registration is turned off; please register with a third-party account' },
  USERNAME_REQUIRED: { zh: '用户名不能为空', en: 'Username is required' },
  USERNAME_TOO_LONG: { zh: '用户名长度不能超过 12 个字符', en: 'Username must be at most 12 characters' },
  PASSWORD_TOO_SHORT: { zh: '密码长度不得小于 8 位', en: 'Password length must not be less than 8' },
  PASSWORD_TOO_LONG: { zh: '密码长度不得超过 20 位', en: 'Password length must not exceed 20' },
  PASSWORDS_DIFFER: { zh: '两次输入的密码不一致', en: 'The two passwords differ' },
  DISPLAY_NAME_TOO_LONG: { zh: '显示名称长度不能超过 20 个字符', en: 'Display name must be at most 20 characters' },
  EMAIL_INVALID: { zh: '邮箱地址无效', en: 'Invalid email address' },
  EMAIL_CODE_REQUIRED: { zh: '管理员开启了邮箱验证，请输入邮箱地址和验证码', en: 'Email verification is on: please enter your email and verification code' },
  VERIFICATION_CODE_INVALID: { zh: '验证码错误或已过期', en: 'Verification code incorrect or expired' },
  USERNAME_TAKEN: { zh: '用户名已存在，或已注销', en: 'Username already exists or has been deregistered' },
  EMAIL_TAKEN: { zh: '邮箱地址已被占用', en: 'Email already in use' },
  USER_NOT_FOUND: { zh: '用户不存在', en: 'User does not exist' },
  CANNOT_READ_HIGHER: { zh: '无权获取同级或更高等级用户的信息', en: 'No permission to read a user of the same or a higher role' },
  CANNOT_UPDATE_HIGHER: { zh: '无权更新同权限等级或更高权限等级的用户信息', en: 'No permission to update a user of the same or a higher role' },
  CANNOT_DELETE_HIGHER: { zh: '无权删除同权限等级或更高权限等级的用户', en: 'No permission to delete a user of the same or a higher role' },
  CANNOT_CREATE_HIGHER: { zh: '无法创建权限大于等于自己的用户', en: 'Cannot create a user with a role equal to or higher than yours' },
  CANNOT_RAISE_ROLE: { zh: '无权将其他用户权限等级提升到大于等于自己的权限等级', en: 'Cannot raise a user to a role equal to or higher than yours' },
  CANNOT_DISABLE_ROOT: { zh: '无法禁用超级管理员用户', en: 'The super admin cannot be disabled' },
  CANNOT_DELETE_ROOT: { zh: '无法删除超级管理员用户', en: 'The super admin cannot be deleted' },
  CANNOT_DEMOTE_ROOT: { zh: '无法降级超级管理员用户', en: 'The super admin cannot be demoted' },
  ONLY_ROOT_PROMOTES: { zh: '普通管理员用户无法提升其他用户为管理员', en: 'Only the super admin can promote users to admin' },
  ALREADY_ADMIN: { zh: '该用户已经是管理员', en: 'This user is already an admin' },
  ALREADY_COMMON: { zh: '该用户已经是普通用户', en: 'This user is already a normal user' },
  INVALID_ACTION: { zh: '无效的操作', en: 'Invalid action' },
  ROOT_SELF_DELETE: { zh: '不能删除超级管理员账户', en: 'The super admin account cannot be deleted' },
  QUOTA_NEGATIVE: { zh: '额度不能为负数', en: 'Quota cannot be negative' },
  AFF_TRANSFER_MIN: { zh: '转移额度最小为', en: 'Transfer amount minimum is' },
  AFF_QUOTA_INSUFFICIENT: { zh: '邀请额度不足', en: 'Insufficient affiliate quota' },
  TOKEN_NOT_FOUND: { zh: '令牌不存在', en: 'Token does not exist' },
  TOKEN_NAME_TOO_LONG: { zh: '令牌名称过长', en: 'Token name is too long' },
  TOKEN_NAME_REQUIRED: { zh: '令牌名称不能为空', en: 'Token name is required' },
  TOKEN_EXPIRED_CANNOT_ENABLE: { zh: '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期', en: 'The token has expired and cannot be enabled; change its expiry or set it to never expire first' },
  TOKEN_EXHAUSTED_CANNOT_ENABLE: { zh: '令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度', en: 'The token quota is used up and it cannot be enabled; raise its remaining quota or make it unlimited first' },
  TOKEN_EXPIRY_IN_PAST: { zh: '过期时间不能早于当前时间', en: 'Expiry time cannot be in the past' },
  TOKEN_COUNT_INVALID: { zh: '创建数量必须在 1 到 100 之间', en: 'Count must be between 1 and 100' },
  TOKEN_GROUP_UNAVAILABLE: { zh: '令牌分组不可用', en: 'This token group is not available to you' },
  TOKEN_STATUS_INVALID: { zh: '无效的令牌状态', en: 'Invalid token status' },
  OPTION_UNKNOWN: { zh: '未知的配置项', en: 'Unknown option' },
  OPTION_NOT_JSON: { zh: '不是合法的 JSON 字符串', en: 'Not a valid JSON string' },
  OPTION_NOT_BOOL: { zh: '开关的值必须是 true 或 false', en: 'A switch value must be true or false' },
  OPTION_NOT_NUMBER: { zh: '必须是数字', en: 'Must be a number' },
  OPTION_NEGATIVE_RATIO: { zh: '倍率不能为负数', en: 'Ratios cannot be negative' },
  OPTION_SERVER_ADDRESS_FIRST: { zh: '请先填写服务器地址', en: 'Please fill in the server address first' },
  OPTION_GITHUB_CONFIG: { zh: '无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！', en: 'Cannot enable GitHub OAuth: fill in the GitHub Client Id and Client Secret first' },
  OPTION_LINUXDO_CONFIG: { zh: '无法启用 LinuxDO OAuth，请先填入 LinuxDO Client Id 以及 LinuxDO Client Secret！', en: 'Cannot enable LinuxDO OAuth: fill in the LinuxDO Client Id and Client Secret first' },
  OPTION_WECHAT_CONFIG: { zh: '无法启用微信登录，请先填入微信登录相关配置信息！', en: 'Cannot enable WeChat login: fill in the WeChat server settings first' },
  OPTION_TURNSTILE_CONFIG: { zh: '无法启用 Turnstile 校验，请先填入 Turnstile 校验相关配置信息！', en: 'Cannot enable Turnstile: fill in the Turnstile site key and secret first' },
  OPTION_TELEGRAM_CONFIG: { zh: '无法启用 Telegram 登录，请先填入 Telegram Bot 配置！', en: 'Cannot enable Telegram login: fill in the bot name and token first' },
  OPTION_EMAIL_DOMAIN_CONFIG: { zh: '无法启用邮箱域名限制，请先填入限制的邮箱域名！', en: 'Cannot enable the email domain restriction: fill in the allowed domains first' },
  TOO_MANY_REQUESTS: { zh: '请求过于频繁，请稍后再试', en: 'Too many requests, please try later' },
  NOT_FOUND_ROUTE: { zh: '无效的 URL', en: 'Invalid URL' },
} as const satisfies Record<string, { zh: string; en: string }>;

export type ServerMessageCode = keyof typeof SERVER_MESSAGES;
export type Lang = 'zh' | 'en';

export function serverMessage(code: ServerMessageCode, lang: Lang): string {
  return SERVER_MESSAGES[code][lang];
}

/** Picks zh or en from an Accept-Language header; zh is the default like the console. */
export function langFromHeader(header: string | undefined): Lang {
  if (!header) return 'zh';
  const first = header.split(',')[0]!.trim().toLowerCase();
  return first.startsWith('en') ? 'en' : 'zh';
}
