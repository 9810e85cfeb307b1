/**
 * Ferrite's persistent off-heap map. {@code Codec.record} builds records through their canonical
 * constructor: a record class of a module must be public or in a package opened to {@code dev.ferrite.kv}.
 */
module dev.ferrite.kv {
    requires transitive dev.ferrite;

    exports dev.ferrite.kv;
}
