import { signal } from "@preact/signals-react";

export type ToastKind = "info" | "success" | "error";

export type Toast = { id: number; kind: ToastKind; message: string };

export const toasts = signal<Toast[]>([]);

let nextId = 1;

export function dismissToast(id: number) {
  toasts.value = toasts.value.filter((toast) => toast.id !== id);
}

export function showToast(message: string, { kind = "info", duration = 6000 }: { kind?: ToastKind; duration?: number } = {}) {
  const id = nextId++;
  toasts.value = [...toasts.value, { id, kind, message }];
  setTimeout(() => dismissToast(id), duration);
}
