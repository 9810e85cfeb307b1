package dev.ferrite.internal;

import java.util.Locale;

/**
 * Reads Ferrite's settings: the system property {@code ferrite.KEY}, else the environment
 * variable {@code FERRITE_KEY} (upper case, dots as underscores), else nothing.
 */
public final class Settings {

    private Settings() {
    }

    /**
     * @param key the setting without prefix, e.g. {@code backend} or {@code leakDetection}
     * @return its value, or null if neither the property nor the variable is set
     */
    public static String get(String key) {
        String value = System.getProperty("ferrite." + key);
        if (value == null) {
            value = System.getenv(environmentName(key));
        }
        return value;
    }

    /**
     * @param key          the setting without prefix
     * @param defaultValue the value when unset
     * @return whether the setting is {@code true} (case-insensitive), or the default when unset
     */
    public static boolean flag(String key, boolean defaultValue) {
        String value = get(key);
        return value == null || value.isBlank() ? defaultValue : Boolean.parseBoolean(value.trim());
    }

    /**
     * @param key the setting without prefix, e.g. {@code leakDetection}
     * @return the environment variable name, e.g. {@code FERRITE_LEAKDETECTION}
     */
    public static String environmentName(String key) {
        return "FERRITE_" + key.replace('.', '_').toUpperCase(Locale.ROOT);
    }
}
