"""The defaults are stated once: every keyword of every command function defaults to what the
JVM resolves for that command (org.nlspark.spark.api.CommandDefaults, which the command line
and the Java API are checked against in CommandDefaultsTest), or to None, left to the JVM."""

import inspect

import nlspark
from nlspark import commands

FUNCTIONS = {"bootstrap": nlspark.bootstrap, "one_sample": nlspark.one_sample,
             "two_sample": nlspark.two_sample, "correlation": nlspark.correlation,
             "glm": nlspark.glm, "isc": nlspark.isc,
             "timeseries_correlation": nlspark.timeseries_correlation,
             "ridge_bootstrap": nlspark.ridge_bootstrap}


def test_every_keyword_defaults_to_the_jvms_value_or_to_none(spark):
    table = nlspark.defaults(spark)
    assert sorted(table) == sorted(FUNCTIONS)
    compared = 0
    for name, fn in FUNCTIONS.items():
        keywords = commands._defaults(fn)
        for key, jvm_value in table[name].items():
            # every setting of the command is a keyword of the function
            assert key in keywords, "%s has no keyword %s= (the JVM's default %r)" % (
                name, key, jvm_value)
            value = keywords[key]
            if value is None:
                continue
            assert value == jvm_value and type(value) is type(jvm_value), (
                "%s(%s=%r) but the command line and the Java API default to %r"
                % (name, key, value, jvm_value))
            compared += 1
    assert compared >= 40


def test_a_keyword_at_its_default_is_not_passed_to_the_command_line():
    # the flags sent are those that differ from the stated defaults, so a Python call with
    # defaults runs the same command line as bin/nlspark with none
    d = commands._defaults(nlspark.one_sample)
    assert commands._options(dict(permutations=5000, tail="two", fwer=True), d) == []
    assert commands._options(dict(permutations=99, tail="upper", fwer=False), d) == [
        "--permutations", "99", "--tail", "upper", "--no-fwer"]
    assert commands._common(d, 0, "cpu", None, None, None) == []
    assert commands._common(d, 0, "gpu", "float64", None, None) == [
        "--backend", "gpu", "--precision", "float64"]


def test_the_signatures_are_what_help_shows():
    # the defaults read by _defaults are the ones a user sees in help()
    sig = inspect.signature(nlspark.glm)
    assert sig.parameters["tail"].default == commands._defaults(nlspark.glm)["tail"] == "upper"
