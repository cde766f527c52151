import { useSignals } from "@preact/signals-react/runtime";
import { dismissToast, toasts } from "../lib/toasts";

export function Toaster() {
  useSignals();
  return (
    <div className="toaster" role="status" aria-live="polite">
      {toasts.value.map((toast) => (
        <article key={toast.id} className={`toast toast-${toast.kind}`}>
          <span>{toast.message}</span>
          {/* Its X is drawn by app.css (.dismiss): no icon in the home page's script. */}
          <button type="button" className="dismiss" aria-label="Dismiss" onClick={() => dismissToast(toast.id)} />
        </article>
      ))}
    </div>
  );
}
