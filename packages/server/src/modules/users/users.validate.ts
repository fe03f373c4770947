import { DISPLAY_NAME_MAX_LENGTH, EMAIL_MAX_LENGTH, isEmailAddress, isWeakPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from '@modelgate/shared';
import { AppError } from '../../http/errors.js';

export function checkUsername(username: string): void {
  if (!username.trim()) throw new AppError('USERNAME_REQUIRED');
  if ([...username].length > USERNAME_MAX_LENGTH) throw new AppError('USERNAME_TOO_LONG');
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw new AppError('PASSWORD_TOO_SHORT');
  if (password.length > PASSWORD_MAX_LENGTH) throw new AppError('PASSWORD_TOO_LONG');
}

/**
 * A new password someone chooses (sign-up, own change, admin create) must not be a common or
 * patterned one. Off only where REJECT_COMMON_PASSWORDS=false (the test servers' fixtures).
 */
export function checkNotCommonPassword(password: string, username: string, enabled: boolean): void {
  if (enabled && isWeakPassword(password, username)) throw new AppError('PASSWORD_TOO_COMMON');
}

export function checkDisplayName(name: string): void {
  if ([...name].length > DISPLAY_NAME_MAX_LENGTH) throw new AppError('DISPLAY_NAME_TOO_LONG');
}

export function checkEmail(email: string): void {
  if (email.length > EMAIL_MAX_LENGTH || !isEmailAddress(email)) throw new AppError('EMAIL_INVALID');
}
