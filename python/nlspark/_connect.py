"""nlspark from a Spark Connect session (the pure client pyspark-client, or any pyspark's
SparkSession.builder.remote): the calls a classic session makes over py4j, sent instead to the
server's nlspark plugin (org.nlspark.connect.CallPlugin) as a Call message (connect/src/main/proto,
compiled for Python into connect_pb2 by the Maven build) packed in a Relation's extension; the
plugin answers with one row (status, stdout, stderr). Each call is a new plan (pyspark gives each
a fresh plan id), so the server's plan cache never answers a call with an earlier call's row.
Paths (inputs, output=) are the server's: the Python side reads the results from output= as it
does in a classic session, so both must see that directory."""

from ._errors import ANSWER_ERRORS

PLUGIN = "org.nlspark.connect.CallPlugin"


def is_connect(spark):
    """Whether spark is a Spark Connect session (no JVM in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


class ConnectRunner:
    """The server's CommandRunner, reached through the plugin."""

    def __init__(self, spark):
        self.spark = spark

    def run(self, args, call_json):
        return self._call("RUN", args, call_json)

    def version(self):
        return self._call("VERSION", [])[0] or None

    def defaults(self):
        return self._call("DEFAULTS", [])[0]

    def copy_result(self, source, target, overwrite):
        return self._call("COPY_RESULT", [source, target, "overwrite" if overwrite else ""])[0]

    def _call(self, method, arguments, call_json=""):
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.errors.exceptions.connect import SparkConnectException
        from . import connect_pb2
        message = connect_pb2.Call(method=connect_pb2.Call.Method.Value(method),
                                   arguments=[str(a) for a in arguments], call_json=call_json)
        try:
            rows = DataFrame(_CallPlan(message), self.spark).collect()
        except SparkConnectException as e:
            # Spark's words when no plugin takes the message (CONNECT_INVALID_PLAN.NO_HANDLER_FOR_
            # EXTENSION: "No handler found for extension type: type.googleapis.com/nlspark...")
            if "NO_HANDLER_FOR_EXTENSION" in str(e) and "nlspark.connect.Call" in str(e):
                raise ValueError(
                    "Cannot run nlspark in this Spark Connect session: its server has no nlspark"
                    " plugin; start the server with the jar nlspark-connect-4.2_2.13-*-app.jar and"
                    " spark.connect.extensions.relation.classes=%s" % PLUGIN) from None
            raise
        status, stdout, stderr = rows[0]
        if status != "ok":
            raise ANSWER_ERRORS[status](stdout)
        return [stdout, stderr]


def _plan_class():
    from pyspark.sql.connect.plan import LogicalPlan

    class CallPlan(LogicalPlan):
        def __init__(self, message):
            super().__init__(None)
            self._message = message

        def plan(self, session):
            relation = self._create_proto_relation()
            relation.extension.Pack(self._message)
            return relation

    return CallPlan


def _CallPlan(message):
    return _plan_class()(message)
