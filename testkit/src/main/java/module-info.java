/** The contract tests every Ferrite backend runs: abstract JUnit 5 classes and their fixtures. */
module dev.ferrite.testkit {
    requires transitive dev.ferrite;
    requires transitive org.junit.jupiter.api;
    requires org.junit.jupiter.params;
    requires ch.qos.logback.classic;
    requires ch.qos.logback.core;
    requires java.management;
    requires jdk.management;

    exports dev.ferrite.testkit;
}
