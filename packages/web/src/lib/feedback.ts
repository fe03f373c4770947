import { App, message as staticMessage, Modal as StaticModal, type ModalFuncProps } from 'antd';

type AppApi = ReturnType<typeof App.useApp>;
type MessageInstance = AppApi['message'];
/** The part of the modal API both the hook and the static version provide. */
type ModalInstance = Record<'info' | 'success' | 'error' | 'warning' | 'confirm', (config: ModalFuncProps) => unknown>;

/**
 * Non-component code (the API client, clipboard helper) needs to toast. antd's static functions
 * cannot see the theme or locale, so the app registers the context-aware instances from
 * `App.useApp()` here at start-up; the static ones are only a fallback before that.
 */
let messageApi: MessageInstance | null = null;
let modalApi: ModalInstance | null = null;

export function registerFeedback(message: MessageInstance, modal: ModalInstance): void {
  messageApi = message;
  modalApi = modal;
}

export function toast(): MessageInstance {
  return messageApi ?? staticMessage;
}

export function modal(): ModalInstance {
  return modalApi ?? StaticModal;
}

/** Same text toasted by several failing queries at once shows once (the key dedupes). */
export function showError(text: string): void {
  void toast().open({ type: 'error', content: text, key: `error:${text}` });
}

export function showSuccess(text: string): void {
  void toast().open({ type: 'success', content: text, key: `success:${text}` });
}
