import { PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from '@modelgate/shared';

export interface RegisterFields {
  username: string;
  password: string;
  password2: string;
  email: string;
  verification_code: string;
}

export type RegisterProblem = 'missingFields' | 'usernameTooLong' | 'passwordTooShort' | 'passwordMismatch' | 'missingEmailCode';


/** Spec §5 register rules, in the order the reference checks them; null when the form may be sent. */
export function validateRegister(fields: RegisterFields, emailVerification: boolean): RegisterProblem | null {
  if (!fields.username.trim() || !fields.password) return 'missingFields';
  // Refused, never cut: the reference's input silently dropped the 13th character on.
  if ([...fields.username].length > USERNAME_MAX_LENGTH) return 'usernameTooLong';
  if (fields.password.length < PASSWORD_MIN_LENGTH) return 'passwordTooShort';
  if (fields.password !== fields.password2) return 'passwordMismatch';
  if (emailVerification && (!fields.email.trim() || !fields.verification_code.trim())) return 'missingEmailCode';
  return null;
}
