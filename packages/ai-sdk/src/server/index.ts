export { aiSdkChat, ChatRequestBody, type AiSdkChatOptions } from './ai-sdk-chat';
