/**
 * Passwords a guesser tries first (issue 35: "12345678" was accepted). Not a breach corpus: the
 * well-known weak passwords of 8+ characters (the minimum length) and the words people decorate
 * with digits and symbols, plus rules for patterns no list can hold (one repeated character, runs
 * like 12345678 or abcdefgh, a short unit repeated, the username itself).
 */
const COMMON = new Set([
  '12345678', '123456789', '1234567890', '12345678910', '87654321', '11111111', '00000000', '88888888', '66666666',
  '123123123', '12341234', '1q2w3e4r', '1q2w3e4r5t', '1qaz2wsx', '1qaz2wsx3edc', 'zaq12wsx', 'qazwsxedc', 'q1w2e3r4',
  'qwertyuiop', 'asdfghjkl', 'zxcvbnm123', 'qwerty123', 'qwe123456', 'a1b2c3d4', 'aa123456', 'a12345678', 'abc12345',
  'abcd1234', 'abc123456', 'asdf1234', 'qwer1234', 'zxcv1234', 'pass1234', 'test1234', 'admin1234', 'root1234',
  '5201314520', 'woaini1314', 'iloveyou1', 'letmein1', 'trustno1', 'passw0rd', 'p@ssw0rd', 'p@ssword', 'pa$$word',
  'baseball', 'football', 'basketball', 'superman', 'batman123', 'starwars', 'whatever', 'sunshine', 'princess',
  'computer', 'internet', 'chocolate', 'password', 'changeme', 'nopassword', 'letmeinnow', 'blahblah', 'jennifer',
  'michelle', 'jordan23', 'liverpool', 'chelsea1', 'arsenal1', 'mustang1', 'corvette', 'mercedes', 'ferrari1',
  'pokemon1', 'naruto123', 'minecraft', 'qwertyui', 'asdfghjk', 'zxcvbnma', 'welcome1', 'iloveyou', 'secret123',
  'default1', 'master123', 'shadow123', 'monkey123', 'dragon123', 'killer123', 'hello123', 'love1234', 'hunter22',
  'freedom1', 'google123', 'samsung1', 'apple123', 'xiaomi123', 'huawei123', 'wangyi123', 'tencent1', 'baidu123',
]);

/** Words that stay weak with digits or symbols after them (Password1!, admin2024, qwerty#1). */
const STEMS = ['password', 'passwd', 'passw0rd', 'p@ssw0rd', 'admin', 'administrator', 'root', 'qwerty', 'welcome', 'iloveyou', 'letmein', 'abc', 'test', 'user', 'guest', 'login', 'woaini', 'default', 'changeme', 'secret', 'master', 'modelgate', 'newapi', 'oneapi'];

function isRun(text: string): boolean {
  if (text.length < 4) return false;
  const step = text.charCodeAt(1) - text.charCodeAt(0);
  if (Math.abs(step) !== 1) return false;
  for (let i = 2; i < text.length; i++) if (text.charCodeAt(i) - text.charCodeAt(i - 1) !== step) return false;
  return true;
}

/** True when `password` is on the list or follows a guessable pattern; `username` is the account's own name. */
export function isWeakPassword(password: string, username = ''): boolean {
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) return true;
  if (/^(.)\1+$/.test(lower) || /^(.{1,4})\1+$/.test(lower) || isRun(lower)) return true;
  const stem = lower.replace(/[\d\W_]+$/, '');
  if (STEMS.includes(stem)) return true;
  const name = username.trim().toLowerCase();
  return name.length >= 3 && lower.includes(name);
}
