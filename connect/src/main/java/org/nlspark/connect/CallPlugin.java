package org.nlspark.connect;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.RelationPlugin;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.nlspark.connect.proto.Call;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.spark.CommandRunner;

/**
 * nlspark on a Spark Connect server: registered with
 * {@code spark.connect.extensions.relation.classes=org.nlspark.connect.CallPlugin}, it answers a
 * relation whose extension is a {@link Call} by making that call of {@link CommandRunner} in the
 * server's session (the calls the Python package makes over py4j in a classic session), so a
 * Connect client runs the same command code and writes the same bytes. The answer is one row
 * {@code (status, stdout, stderr)}: status {@code ok}, or {@code invalid-input} /
 * {@code resource-refused} with the one-sentence message in stdout (the client raises ValueError
 * / ResourceError, as on a classic session); any other failure travels as the server's error.
 * The call runs when the relation is planned: the client asks for the row once.
 */
public final class CallPlugin implements RelationPlugin {
  static final StructType ANSWER = new StructType()
      .add("status", DataTypes.StringType, false)
      .add("stdout", DataTypes.StringType, false)
      .add("stderr", DataTypes.StringType, false);

  @Override
  public Optional<LogicalPlan> transform(byte[] relation, SparkConnectPlanner planner) {
    Any any;
    try {
      any = Any.parseFrom(relation);
      if (!any.is(Call.class)) {
        return Optional.empty(); // another plugin's relation
      }
      Call call = any.unpack(Call.class);
      SparkSession spark = planner.session();
      Row answer = RowFactory.create((Object[]) answer(spark, call));
      return Optional.of(spark.createDataFrame(List.of(answer), ANSWER).logicalPlan());
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty(); // not a message of ours
    }
  }

  /** The call's answer: {status, stdout, stderr}. */
  static String[] answer(SparkSession spark, Call call) {
    List<String> args = call.getArgumentsList();
    try {
      switch (call.getMethod()) {
        case RUN: {
          String[] printed = CommandRunner.run(spark, args.toArray(new String[0]),
              call.getCallJson().isEmpty() ? "{}" : call.getCallJson());
          return new String[] {"ok", printed[0], printed[1]};
        }
        case VERSION: {
          String version = CommandRunner.version();
          return new String[] {"ok", version == null ? "" : version, ""};
        }
        case DEFAULTS:
          return new String[] {"ok", CommandRunner.defaults(), ""};
        case COPY_RESULT:
          if (args.size() != 3) {
            throw new IllegalArgumentException("[BUG] COPY_RESULT takes from, to, overwrite");
          }
          return new String[] {"ok",
              CommandRunner.copyResult(spark, args.get(0), args.get(1),
                  "overwrite".equals(args.get(2))), ""};
        default:
          throw new IllegalArgumentException(
              "[BUG] the nlspark Connect call has no method: " + call.getMethod());
      }
    } catch (InvalidInputException e) {
      return new String[] {"invalid-input", e.getMessage(), ""};
    } catch (ResourceRefusedException e) {
      return new String[] {"resource-refused", e.getMessage(), ""};
    }
  }
}
