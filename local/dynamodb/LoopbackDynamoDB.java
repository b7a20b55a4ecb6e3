import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to 127.0.0.1 only. Its own command line has no host option: its Jetty
 * server listens on every interface. This launcher builds the server from the same command
 * line (ServerRunner.createServerFromCommandLineArgs), sets each Jetty connector's host to
 * the loopback address, then starts it. Run as a single-file source program:
 * java -Djava.library.path=<lib> -cp <DynamoDBLocal.jar>:<lib>/* LoopbackDynamoDB.java -port N ...
 */
public class LoopbackDynamoDB {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    for (Connector c : jetty.getConnectors()) {
      if (c instanceof ServerConnector sc) sc.setHost("127.0.0.1");
    }
    proxy.start();
  }
}
