import { useSearchParams } from "react-router";
import { pageHead } from "../../config/pages";
import { DevicePage } from "../../features/device/components/device-page";
import { usePageHead } from "../../lib/head";

export default function DeviceRoute() {
  usePageHead(pageHead("device"));
  return <DevicePage initialCode={useSearchParams()[0].get("code") ?? ""} />;
}
