// A plain JDK client (HttpsURLConnection): under `fcm-emu exec` it reaches the emulator through the proxy
// properties and the trust store that JAVA_TOOL_OPTIONS carries, with Google's URL unchanged.
import java.net.*; import java.io.*; import javax.net.ssl.*;
public class Send {
  public static void main(String[] a) throws Exception {
    URL url = new URL("https://fcm.googleapis.com/v1/projects/demo-fcm-emu/messages:send");
    HttpsURLConnection c = (HttpsURLConnection) url.openConnection();
    c.setRequestMethod("POST"); c.setDoOutput(true);
    c.setRequestProperty("Authorization", "Bearer any"); c.setRequestProperty("Content-Type", "application/json");
    c.getOutputStream().write("{\"message\":{\"topic\":\"java\"}}".getBytes());
    System.out.println(c.getResponseCode() + " " + new String(c.getInputStream().readAllBytes()).replace("\n", ""));
  }
}
