import { useSignals } from "@preact/signals-react/runtime";
import { dismissToast, toasts } from "../lib/toasts";
import { CloseIcon } from "./icons";

export function Toaster() {
  useSignals();
  return (
    <div className="toaster" role="status" aria-live="polite">
      {toasts.value.map((toast) => (
        <article key={toast.id} className={`toast toast-${toast.kind}`}>
          <span>{toast.message}</span>
          <button type="button" className="quiet icon-button" aria-label="Dismiss" onClick={() => dismissToast(toast.id)}>
            <CloseIcon />
          </button>
        </article>
      ))}
    </div>
  );
}
